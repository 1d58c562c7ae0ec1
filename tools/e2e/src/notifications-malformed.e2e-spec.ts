/**
 * No input makes notifications answer 5xx and no refused input is stored or sent: at least 1,000 generated malformed
 * requests per route, through the gateway (with a valid key, the admin key or the webhook secret as the route
 * wants). Seeded, so a failing request can be replayed; failures are printed with their answer. A request that
 * carries the credentials its route wants and is refused with 401 or 403 fails the test: the refusals must be the
 * validation the route owes, not the authentication in front of it (issue 22).
 */
import { randomBytes } from 'node:crypto';
import {
  ACCOUNT_EVENT_TYPES,
  BOT_TOKEN_SHAPE,
  CHAT_ID_SHAPE,
  isChannel,
  isContractAddress,
  isLedgerAccountAddress,
  parseRiskLevel,
} from '@rp/contracts';
import { Keypair } from '@stellar/stellar-sdk';
import { STACK_ADMIN_KEY as ADMIN_KEY, startStack } from '@rp/dev';
import {
  NOTIFICATIONS,
  type NotificationsCalls,
  notificationsCalls,
  notificationsStack,
  WEBHOOK_SECRET,
  alertFor,
} from './support/notification-channels';
import { type Random, generator } from './support/seeded-random';

const PER_ROUTE = 1000;

function junk(random: Random): unknown {
  return random.pick<() => unknown>([
    () => null,
    () => random.int(1_000_000) - 500_000,
    () => random.next() * 1e30,
    () => random.next() < 0.5,
    () => [],
    () => [random.int(9), 'x'],
    () => ({}),
    () => ({ nested: { deeper: [1, { a: 'b' }] } }),
    () => '',
    () => ' ',
    () => 'x'.repeat(1 + random.int(5000)),
    () => '\u0000\u202e\ud83d\ude00',
    () => '-1',
    () => '1e9',
    () => Keypair.random().publicKey().toLowerCase(),
    () => Keypair.random().secret(),
    () => '<script>alert(1)</script>',
    () => "' OR 1=1 --",
    () => '../../etc/passwd',
    () => 'http://169.254.169.254/latest/meta-data',
    () => 'https://discord.com.evil.example/api/webhooks/1/x',
    () => `https://[::1]/api/webhooks/1/x`,
    () => randomBytes(1 + random.int(64)).toString('base64'),
  ])();
}

/** A value of `field` that its rule refuses (so the whole request must be refused). */
const VALID: Record<string, (value: unknown) => boolean> = {
  walletAddress: isLedgerAccountAddress,
  address: isLedgerAccountAddress,
  poolAddress: isContractAddress,
  messengerChatId: (v) =>
    (typeof v === 'string' && CHAT_ID_SHAPE.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v !== 0),
  messengerBotToken: (v) => typeof v === 'string' && BOT_TOKEN_SHAPE.test(v),
  minRiskLevel: (v) => parseRiskLevel(v) !== undefined,
  riskLevel: (v) => parseRiskLevel(v) !== undefined,
  email: (v) => typeof v === 'string' && /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(v),
  channel: isChannel,
  enabledChannels: (v) => Array.isArray(v) && v.length <= 3 && v.every(isChannel),
  channelWebhook: () => false,
  source: (v) => typeof v === 'string' && v.length >= 1 && v.length <= 100,
  alertId: (v) => typeof v === 'string' && /^[\x21-\x7e]{1,128}$/.test(v),
  healthFactor: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  collateralValueUsd: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  triggers: (v) => Array.isArray(v) && v.length <= 16 && v.every((t) => typeof t === 'string' && t.length <= 64),
  recommendedAction: (v) => typeof v === 'string' && ['HOLD', 'WATCH', 'REPAY', 'LIQUIDATE'].includes(v),
  evaluatedAt: (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v),
  alert: () => false,
  eventId: (v) => typeof v === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(v),
  type: (v) => (ACCOUNT_EVENT_TYPES as readonly unknown[]).includes(v),
  occurredAt: (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v),
  txHash: (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v),
  healthFactorBefore: (v) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0),
  detail: (v) => typeof v === 'string' && v.length <= 300 && !/[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/u.test(v),
  routing: (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.keys(v).every((k) => k === 'channels' || k === 'priority'),
};
function invalid(random: Random, field: string): unknown {
  if (!VALID[field]) throw new Error(`no rule for ${field}`);
  for (;;) {
    const value = junk(random);
    if (!VALID[field]?.(value)) return value;
  }
}

function broken(random: Random, valid: Record<string, unknown>, required: string[]): unknown {
  const kind = random.int(6);
  if (kind === 0) return junk(random);
  // (`constructor` is not among them: class-transformer drops that key on every service, so it is ignored, not refused.)
  if (kind === 1) return { ...valid, [random.pick(['extra', 'admin', 'accountId', 'enabled'])]: junk(random) };
  if (kind === 2) {
    const missing = { ...valid };
    delete missing[random.pick(required)];
    return missing;
  }
  if (kind === 3) return random.pick(['{', '{"walletAddress":', 'null', '[]', '"x"', '{"a":1}}']);
  const field = random.pick(Object.keys(valid));
  return { ...valid, [field]: invalid(random, field) };
}

describe('malformed requests to notifications', () => {
  let s: NotificationsCalls;
  let key: string;
  const wallets = Array.from({ length: 20 }, () => Keypair.random().publicKey());
  const failures: string[] = [];

  beforeAll(async () => {
    s = notificationsCalls(await startStack(notificationsStack()));
    key = await s.apiKey();
  }, 180_000);
  afterAll(() => s?.stack.close());

  async function run(
    route: string,
    make: (
      random: Random,
      i: number,
    ) => {
      method: 'GET' | 'POST' | 'DELETE';
      path: string;
      body?: unknown;
      headers?: Record<string, string>;
      auth?: 'key' | 'none';
    },
  ) {
    const random = generator(route.length * 7919 + 17);
    const counts: Record<number, number> = {};
    const owed = { count: 0 };
    for (let i = 0; i < PER_ROUTE; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, async (_, j) => {
          const request = make(random, i + j);
          const answer = await s.call(request.method, request.path, {
            key: request.auth === 'none' ? undefined : key,
            body: request.body,
            headers: request.headers,
          });
          counts[answer.status] = (counts[answer.status] ?? 0) + 1;
          // A request with the credentials its route wants must be refused for what it holds, not at the door.
          const credentialed = carriesValidCredentials(request);
          if (credentialed) owed.count += 1;
          const refusedAtTheDoor = credentialed && (answer.status === 401 || answer.status === 403);
          if (answer.status >= 500 || (answer.status >= 200 && answer.status < 300) || refusedAtTheDoor) {
            failures.push(
              `${route}: ${request.method} ${request.path} ${JSON.stringify(request.body)?.slice(0, 300)} -> ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
            );
          }
        }),
      );
    }
    return { counts, credentialed: owed.count };
  }

  /** The key (keyed routes), the admin key or the webhook secret as the route wants them, unchanged. */
  function carriesValidCredentials(request: { headers?: Record<string, string>; auth?: 'key' | 'none' }): boolean {
    if (request.auth !== 'none') return true;
    const given = request.headers ?? {};
    return given['x-admin-key'] === ADMIN_KEY || given['x-webhook-secret'] === WEBHOOK_SECRET;
  }

  const messenger = (r: Random) => ({
    walletAddress: r.pick(wallets),
    messengerChatId: '12345',
    messengerBotToken: `1:${'a'.repeat(35)}`,
    minRiskLevel: 'high',
    enabledChannels: ['messenger'],
  });
  const query = (r: Random) => {
    const value = () => encodeURIComponent(String(junk(r)));
    return r.pick([
      () => '',
      () => `?walletAddress=${value()}`,
      () => `?walletAddress=${r.pick(wallets)}&walletAddress=${r.pick(wallets)}&channel=email`,
      () => `?walletAddress[]=${value()}&channel=email`,
      () => `?walletAddress=${r.pick(wallets)}&channel=${value()}`,
      () => `?walletAddress=${r.pick(wallets).toLowerCase()}&channel=messenger`,
      () => `?walletAddress=${r.pick(wallets)}&channel=messenger&extra=${value()}`,
      () => `?${value()}=${value()}`,
    ])();
  };

  it.each([
    [
      'POST /messenger',
      (r: Random) => ({
        method: 'POST' as const,
        path: `${NOTIFICATIONS}/messenger`,
        body: broken(r, messenger(r), ['walletAddress', 'messengerChatId']),
      }),
    ],
    [
      'POST /channelhook',
      (r: Random) => ({
        method: 'POST' as const,
        path: `${NOTIFICATIONS}/channelhook`,
        body:
          r.next() < 0.3
            ? { walletAddress: r.pick(wallets), channelWebhook: junk(r) }
            : broken(
                r,
                {
                  walletAddress: r.pick(wallets),
                  channelWebhook: r.pick([
                    'https://discord.com/api/webhooks/1/x',
                    'http://10.0.0.1/hooks/discord/1/x',
                    'https://hooks.slack.com/services/../x',
                  ]),
                  minRiskLevel: 'low',
                },
                ['walletAddress', 'channelWebhook'],
              ),
      }),
    ],
    [
      'POST /email',
      (r: Random) => ({
        method: 'POST' as const,
        path: `${NOTIFICATIONS}/email`,
        body: broken(r, { walletAddress: r.pick(wallets), email: 'not-an-email', minRiskLevel: 'warn' }, [
          'walletAddress',
          'email',
        ]),
      }),
    ],
    ['GET config', (r: Random) => ({ method: 'GET' as const, path: `${NOTIFICATIONS}${query(r)}` })],
    ['DELETE config', (r: Random) => ({ method: 'DELETE' as const, path: `${NOTIFICATIONS}${query(r)}` })],
    ['POST /test', (r: Random) => ({ method: 'POST' as const, path: `${NOTIFICATIONS}/test${query(r)}` })],
    [
      'POST /webhook',
      (r: Random) => {
        const alert = alertFor(r.pick(wallets));
        const field = r.pick([
          'address',
          'poolAddress',
          'riskLevel',
          'healthFactor',
          'triggers',
          'collateralValueUsd',
          'recommendedAction',
          'evaluatedAt',
          'alertId',
        ]);
        const body = r.pick<() => unknown>([
          () => broken(r, { source: 'fuzz', alert, routing: { channels: ['email'] } }, ['source', 'alert']),
          () => ({ source: 'fuzz', alert: { ...alert, [field]: invalid(r, field) } }),
          () => ({ source: 'fuzz', alert, routing: { channels: [junk(r)], priority: 'urgent' } }),
          () => ({ source: 'fuzz', alert, routing: { priority: junk(r) } }),
        ])();
        const headers =
          r.next() < 0.15
            ? {
                'x-webhook-secret':
                  String(junk(r))
                    .slice(0, 100)
                    .replace(/[^\x20-\x7e]/g, '') || 'x',
              }
            : { 'x-webhook-secret': WEBHOOK_SECRET };
        return { method: 'POST' as const, path: `${NOTIFICATIONS}/webhook`, body, headers, auth: 'none' as const };
      },
    ],
    [
      'POST /events',
      (r: Random) => ({
        method: 'POST' as const,
        path: '/rms/events',
        body: broken(
          r,
          {
            eventId: `evt-fuzz-${r.int(1_000_000)}`,
            type: r.pick([...ACCOUNT_EVENT_TYPES]),
            walletAddress: r.pick(wallets),
            occurredAt: new Date().toISOString(),
            poolAddress: alertFor(r.pick(wallets)).poolAddress,
            txHash: 'a'.repeat(64),
            healthFactorBefore: 1.05,
            detail: 'a close was sent',
          },
          ['eventId', 'type', 'walletAddress', 'occurredAt'],
        ),
      }),
    ],
    [
      'POST /dlq/:id/redrive',
      (r: Random) => ({
        method: 'POST' as const,
        path: `${NOTIFICATIONS}/dlq/${encodeURIComponent(String(junk(r)).slice(0, 300)) || 'x'}/redrive`,
        headers: { 'x-admin-key': r.next() < 0.2 ? 'wrong-admin-key-0000' : ADMIN_KEY },
        auth: 'none' as const,
      }),
    ],
    [
      'POST /dlq/redrive',
      (r: Random) => ({
        method: 'POST' as const,
        path: `${NOTIFICATIONS}/dlq/redrive?channel=${encodeURIComponent(String(invalid(r, 'channel')).slice(0, 300))}`,
        headers: { 'x-admin-key': ADMIN_KEY },
        auth: 'none' as const,
      }),
    ],
    [
      'GET /dlq',
      (r: Random) => ({
        method: 'GET' as const,
        path: `${NOTIFICATIONS}/dlq`,
        headers: {
          'x-admin-key':
            String(junk(r))
              .slice(0, 100)
              .replace(/[^\x20-\x7e]/g, '') || 'x',
        },
        auth: 'none' as const,
      }),
    ],
  ])(
    '%s: 1,000 malformed requests, each refused by the route itself (no 5xx, no 2xx, no 401 or 403)',
    async (route, make) => {
      const before = failures.length;
      const { counts, credentialed } = await run(route, make);
      console.log(`${route}: ${JSON.stringify(counts)}`);
      expect(failures.slice(before)).toEqual([]);
      // The refusals the route owes: validation (400) or, for well-formed requests about nothing, 404.
      if (credentialed > 0) expect((counts[400] ?? 0) + (counts[404] ?? 0)).toBeGreaterThan(0);
    },
    300_000,
  );

  it('stored and sent nothing', async () => {
    for (const wallet of wallets) {
      expect((await s.call('GET', `${NOTIFICATIONS}?walletAddress=${wallet}`, { key })).status).toBe(404);
    }
    const dlq = await s.admin('GET', '/dlq');
    expect(dlq.body.total).toBe(0);
    expect(s.stack.sandbox.channels.log.size).toBe(0);
  });
});
