/**
 * Every route of every app, as real processes from source, answers generated malformed requests (methods x path
 * tricks x query x headers x bodies x encodings, 1,000 per route from a fixed seed) below 500 or by closing the
 * connection, and none of them kills a process or stores anything (issue 16 §1). Routes come from the apps
 * themselves: each service's OpenAPI document, the gateway's merged document (every public path, through the gateway
 * to the real services), the platform routes every Nest app serves, and the agent's status routes. A new route is in
 * the document, hence in this suite. Services run without INTERNAL_TOKEN and half the requests carry a caller
 * identity, so the generated requests reach each route's own validation, not only the signature check.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type AppName, type AppProcess, type Stack, startStack } from '@rp/dev';
import { type RedisClient, closeRedisConnection, createRedisConnection, encodeCallerIdentity } from '@rp/platform';
import { FuzzClient, type Outcome } from './support/fuzz-client';
import { BODY_LIMIT, type MalformedRequest, type Route, malformedRequest } from './support/malformed-requests';
import { DEMO_MNEMONIC } from './support/running-apps';
import { generator } from './support/seeded-random';
import { NOTIFICATIONS_TEST_SETTINGS } from './support/notification-channels';

/** 1,000 in CI; `RP_FUZZ_PER_ROUTE` lowers it while a failure is looked into. */
const PER_ROUTE = Number(process.env['RP_FUZZ_PER_ROUTE'] ?? 1000);
const SEED = 16;
const REDIS_DB = 7;
/** Every Nest app serves these besides its documented routes (liveness, readiness, metrics, its document). */
const PLATFORM_ROUTES = ['/health', '/health/live', '/health/ready', '/metrics', '/openapi.json'];
/** The agent's status server (no Nest, no document: ADR 013); see apps/agent/src/http/status-server.ts. */
const AGENT_ROUTES = ['/health', '/health/live', '/health/ready', '/status', '/metrics'];

const identity = encodeCallerIdentity({
  keyId: 'fuzz-key',
  tier: 'partner',
  rateLimit: 1_000_000,
  burst: 1_000_000,
  expiresAt: '2099-01-01T00:00:00.000Z',
  email: 'fuzz@example.com',
  account: 'partner:fuzz',
});

let directory: string;
const apps = new Map<AppName, AppProcess>();
let redis: RedisClient;
let stack: Stack;

/** The SQLite file of an app that has a database. */
const databaseOf = (app: AppName) => join(directory, `${app}.sqlite`);
const HAS_DATABASE: AppName[] = ['subscription', 'notifications', 'agent'];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'rp-fuzz-'));
  // Every app configured as in production (payment, admin key, webhook secret, channels): a route that is not
  // configured answers 503 by design, which would hide what it does with a malformed request.
  // No ledger closes: nothing here settles, and the risk monitor then has no rounds to run beside the suite.
  const file = (app: AppName) => ({ DATABASE_URL: `sqlite://${databaseOf(app)}` });
  stack = await startStack({
    apps: ['subscription', 'txb', 'notifications', 'agent', 'gateway'],
    ledgerIntervalMs: 0,
    redisDb: REDIS_DB,
    env: {
      // No INTERNAL_TOKEN: identities travel unsigned, so generated requests reach each route's validation.
      all: { INTERNAL_TOKEN: undefined, BODY_LIMIT, LOG_LEVEL: 'warn' },
      subscription: file('subscription'),
      notifications: { ...NOTIFICATIONS_TEST_SETTINGS, ...file('notifications') },
      // The agent alone, on no ledger and no service: its own routes are what is fuzzed.
      agent: {
        ...file('agent'),
        LEDGER_MNEMONIC: DEMO_MNEMONIC,
        CONTRACT_RPC_URL: 'http://127.0.0.1:1/rpc',
        SERVICE_BASE_URL: undefined,
        NODE_EXTRA_CA_CERTS: undefined,
        WATCHED_POOLS: undefined,
        UNWIND_RECEIVER: undefined,
        BLEND_POOL_FACTORY: undefined,
      },
      gateway: {
        PUBLIC_RATE_LIMIT: '10000000',
        PUBLIC_BURST: '10000000',
        KEY_FAILURE_BURST: '10000000',
        KEY_FAILURE_RATE_LIMIT: '10000000',
      },
    },
  });
  for (const app of ['subscription', 'txb', 'notifications', 'agent', 'gateway'] as const)
    apps.set(app, stack.app(app));
  if (process.env['RP_FUZZ_LOG']) appendFileSync(process.env['RP_FUZZ_LOG'], 'started\n');
  const url = new URL(stack.redisUrl);
  redis = createRedisConnection(
    { url: stack.redisUrl, host: url.hostname, port: Number(url.port), db: REDIS_DB },
    'e2e',
  );
}, 180_000);

afterAll(async () => {
  if (redis) await closeRedisConnection(redis);
  await stack?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** The routes `app` serves, read from the app itself. */
async function routesOf(app: AppName): Promise<Route[]> {
  const running = apps.get(app)!;
  if (app === 'agent') return AGENT_ROUTES.map((path) => ({ method: 'GET', path }));
  const documentPath = app === 'gateway' ? '/api/docs/openapi.json' : '/openapi.json';
  const document = (await (await fetch(`${running.url}${documentPath}`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
  const platform = PLATFORM_ROUTES.map((path) => ({ method: 'GET', path }));
  const gatewayOwn =
    app === 'gateway'
      ? ['/api/docs', '/api/docs/openapi.json', '/api/docs/swagger-ui-init.js', '/api/v1/nobody/owns/this'].map(
          (path) => ({ method: 'GET', path }),
        )
      : [];
  return [...documented, ...platform, ...gatewayOwn];
}

/**
 * Tables an app writes on its own clock, whatever it is asked: the history janitor marks each hour it rolled up a
 * minute after the hour closes, so a run that spans that minute would see a mark no request stored.
 */
const HOUSEKEEPING_TABLES = new Set(['notifications.health_rollup_marks']);

/** Rows of every table of each app's database, and every Redis key but housekeeping. */
async function storedState(): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const app of HAS_DATABASE) {
    const db = new Database(databaseOf(app), { readonly: true, fileMustExist: true });
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as { name: string }[];
      // Rows only: a table an app creates on first use is schema, not something stored.
      for (const { name } of tables) {
        const rows = (db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n;
        if (rows > 0 && !HOUSEKEEPING_TABLES.has(`${app}.${name}`)) state[`${app}.${name}`] = rows;
      }
    } finally {
      db.close();
    }
  }
  // Queue housekeeping (BullMQ's meta and stalled-check keys), the risk monitor's rounds and the agent's lease come
  // and go on their own.
  const housekeeping = /:(meta|stalled-check)$|^rp:agent:lock:|:rms:(round|events-ledger)/;
  const keys = (await redis.keys('*')).filter((key) => !housekeeping.test(key)).sort();
  state['redis'] = keys;
  return state;
}

describe.each(['subscription', 'txb', 'notifications', 'agent', 'gateway'] as const)('every route of %s', (app) => {
  let client: FuzzClient;
  let exited: number | null | undefined;

  beforeAll(() => {
    const running = apps.get(app)!;
    client = new FuzzClient(running.url);
    void running.whenExited().then((code) => (exited = code));
  });

  it(`answers ${PER_ROUTE} malformed requests per route below 500, lives on, and stores nothing`, async () => {
    const routes = await routesOf(app);
    expect(routes.length).toBeGreaterThan(app === 'agent' ? 4 : 5);
    const before = await storedState();
    const random = generator(SEED);
    const failures: string[] = [];
    const statuses = new Map<Outcome['status'], number>();
    const withIdentity = (): Record<string, string> => (random.next() < 0.5 ? { 'x-rp-identity': identity } : {});
    for (const route of routes) {
      await client.run(
        PER_ROUTE,
        () => malformedRequest(random, route, withIdentity),
        (request: MalformedRequest, outcome: Outcome) => {
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
          if (typeof outcome.status === 'number' && outcome.status >= 500) {
            failures.push(`${outcome.status} ${describeRequest(request)} -> ${outcome.body}`);
          }
        },
      );
      expect({ route, exited }).toEqual({ route, exited: undefined });
      if (process.env['RP_FUZZ_LOG'])
        appendFileSync(process.env['RP_FUZZ_LOG'], `${app} ${route.method} ${route.path}\n`);
    }
    // No 5xx, the process is alive and still answers, nothing was stored.
    expect(failures.slice(0, 20)).toEqual([]);
    expect(exited).toBeUndefined();
    expect(apps.get(app)!.running).toBe(true);
    expect((await fetch(`${apps.get(app)!.url}/health`)).status).toBe(200);
    expect(await storedState()).toEqual(before);
    expect(stack.sandbox.channels.log.size).toBe(0);
    // The generator reaches past the first refusal: many distinct 4xx answers, and some requests routed as written.
    const fourHundreds = [...statuses.keys()].filter((status) => typeof status === 'number' && status >= 400);
    expect(fourHundreds.length).toBeGreaterThanOrEqual(app === 'agent' ? 3 : 5);
    process.stdout.write(`${app}: ${routes.length} routes, ${JSON.stringify(Object.fromEntries(statuses))}\n`);
  }, 600_000);
});

function describeRequest(request: MalformedRequest): string {
  const headers = JSON.stringify(request.headers).slice(0, 300);
  const body = request.body
    ? `${request.body.length} bytes: ${request.body.subarray(0, 80).toString('latin1')}`
    : 'no body';
  return `${request.method} ${request.target.slice(0, 200)} ${headers} ${body}`;
}
