/**
 * The module-boundary lint, proven on fixtures: each snippet is linted as if it were a file at the given path,
 * with the workspace's real ESLint configuration and project graph. Besides the project boundaries: apps import no
 * ledger SDK, x402 package, database driver or Redis client (types included), only the libraries that wrap them;
 * app integration tests may use the sandbox. Shapes that must not come back: a Lua loader or a BullMQ connection of an
 * app's own, a notifications feature importing the module root, a Redis seam `new`-ed in a notifications service.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { createProjectGraphAsync } from '@nx/devkit';

const root = resolve(__dirname, '../../..');

interface LintMessage {
  ruleId: string | null;
  severity: number;
  message: string;
}

/** Runs the ESLint CLI (it loads the ESM config, which Jest's module system cannot) on `code` as file `path`. */
async function lint(path: string, code: string): Promise<string[]> {
  const result = spawnSync(
    process.execPath,
    [resolve(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', path, '--format', 'json'],
    { cwd: root, input: code, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } },
  );
  const [report] = JSON.parse(result.stdout) as { messages: LintMessage[] }[];
  return report.messages.filter((message) => message.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('module boundaries', () => {
  beforeAll(async () => {
    process.env['NX_DAEMON'] = 'false';
    await createProjectGraphAsync({ exitOnError: false });
  }, 120_000);

  it('fails when an app imports another app', async () => {
    const errors = await lint(
      'apps/gateway/src/routing/fixture.ts',
      "import { subscriptionApp } from '../../../subscription/src/subscription.app';\nexport const app = subscriptionApp;\n",
    );
    expect(errors).toEqual([expect.stringContaining('@nx/enforce-module-boundaries')]);
  });

  it('fails when contracts (type:dto) imports any library of ours', async () => {
    const errors = await lint(
      'libs/contracts/src/lib/fixture.ts',
      "import * as ledger from '@rp/ledger';\nexport const used = ledger;\n",
    );
    // Every library of ours reaches contracts, so the rule reports the import as a cycle (the tag rule would too).
    expect(errors).toEqual([
      expect.stringMatching(/enforce-module-boundaries: (Circular dependency|A project tagged with "type:dto")/),
    ]);
  });

  it('fails when a utility library reaches up into the domain layer', async () => {
    const errors = await lint(
      'libs/platform/src/lib/fixture.ts',
      "import * as ledger from '@rp/ledger';\nexport const used = ledger;\n",
    );
    expect(errors).toEqual([
      expect.stringContaining('A project tagged with "type:util" can only depend on libs tagged with'),
    ]);
  });

  it('fails on an import that would close a dependency cycle', async () => {
    const errors = await lint(
      'libs/platform/src/lib/fixture.ts',
      "import { DocumentStore } from '@rp/persistence';\nexport const store = DocumentStore;\n",
    );
    expect(errors).toEqual([expect.stringContaining('Circular dependency between "platform" and "persistence"')]);
  });

  it.each(['apps/txb/src/fixture.ts', 'tools/e2e/src/fixture.ts'])(
    'refuses a deep import into a library (%s)',
    async (path) => {
      const errors = await lint(
        path,
        "import { ApiError } from '@rp/platform/src/lib/errors/api-error';\nexport const error = ApiError;\n",
      );
      expect(errors).toEqual(expect.arrayContaining([expect.stringContaining('no-restricted-imports: ')]));
    },
  );

  it.each([
    ['ioredis', "import Redis from 'ioredis';\nexport const redis = Redis;\n"],
    ['a type from ioredis', "import type { Redis } from 'ioredis';\nexport type Client = Redis;\n"],
    ['the Stellar SDK', "import { Keypair } from '@stellar/stellar-sdk';\nexport const keys = Keypair;\n"],
    [
      'x402',
      "import { ExactStellarScheme } from '@x402/stellar/exact/facilitator';\nexport const s = ExactStellarScheme;\n",
    ],
    ['mongoose', "import mongoose from 'mongoose';\nexport const m = mongoose;\n"],
    ['pg', "import { Pool } from 'pg';\nexport const pool = Pool;\n"],
    ['better-sqlite3', "import Database from 'better-sqlite3';\nexport const db = Database;\n"],
    ['the Stellar base SDK to re-export it', "export { Keypair } from '@stellar/stellar-base';\n"],
  ])('refuses an app importing %s', async (_what, code) => {
    const errors = await lint('apps/gateway/src/routing/fixture.ts', code);
    expect(errors).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*through @rp\//)]);
  });

  it.each([
    ['a type import expression', "export type Client = import('ioredis').Redis;\n"],
    ['a dynamic import', "export const load = () => import('pg');\n"],
  ])('refuses an app reaching a driver through %s', async (_what, code) => {
    const errors = await lint('apps/txb/src/fixture.ts', code);
    expect(errors).toEqual([expect.stringMatching(/^no-restricted-syntax: .*only through @rp\/\* libraries/)]);
  });

  it('lets the libraries that wrap them import the drivers', async () => {
    expect(
      await lint('libs/platform/src/lib/fixture.ts', "import Redis from 'ioredis';\nexport const r = Redis;\n"),
    ).toEqual([]);
    expect(
      await lint(
        'libs/ledger/src/fixture.ts',
        "import { Keypair } from '@stellar/stellar-sdk';\nexport const k = Keypair;\n",
      ),
    ).toEqual([]);
  });

  it('lets app integration tests, and only them, run against the sandbox', async () => {
    const code = "import { startSandbox } from '@rp/sandbox';\nexport const start = startSandbox;\n";
    expect(await lint('apps/subscription/src/payment/fixture.int-spec.ts', code)).toEqual([]);
    expect(await lint('apps/subscription/src/test/fixture.int-support.ts', code)).toEqual([]);
    for (const path of ['apps/subscription/src/payment/fixture.ts', 'apps/subscription/src/payment/fixture.spec.ts']) {
      expect(await lint(path, code)).toEqual([
        expect.stringContaining('A project tagged with "type:app" can only depend on libs tagged with'),
      ]);
    }
    // The widening is for the sandbox alone: other tooling stays out of app tests.
    expect(
      await lint(
        'apps/subscription/src/payment/fixture.int-spec.ts',
        "import { AppProcess } from '@rp/dev';\nexport const app = AppProcess;\n",
      ),
    ).toEqual([expect.stringContaining('A project tagged with "type:app" can only depend on libs tagged with')]);
    // And drivers stay out of integration tests too.
    expect(
      await lint(
        'apps/subscription/src/payment/fixture.int-spec.ts',
        "import Redis from 'ioredis';\nexport const r = Redis;\n",
      ),
    ).toEqual([expect.stringContaining('@typescript-eslint/no-restricted-imports')]);
  });

  it("keeps the agent's mock out of every mode but its own (the mode is chosen once at start)", async () => {
    const asked = 'export class Loop {\n  private readonly mock = undefined;\n  poll(): boolean {\n    return this.mock !== undefined;\n  }\n}\n';
    expect(await lint('apps/agent/src/loop/fixture.ts', asked)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: .*never a mock flag/),
    ]);
    const held = "import { MockService } from '../mock/mock-service';\nexport const played = MockService;\n";
    expect(await lint('apps/agent/src/close/fixture.ts', held)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: MockService belongs to the mock mode/),
    ]);
    expect(await lint('apps/agent/src/mock/fixture.ts', held.replace('../mock/', './'))).toEqual([]);
    // The app's other rules still hold in the agent.
    expect(await lint('apps/agent/src/loop/fixture.ts', "export const load = () => import('pg');\n")).toEqual([
      expect.stringMatching(/^no-restricted-syntax: .*only through @rp\/\* libraries/),
    ]);
  });

  it('accepts an app importing libraries through their entry points', async () => {
    const errors = await lint(
      'apps/txb/src/fixture.ts',
      "import { ApiError } from '@rp/platform';\nimport { TXB_ACTIONS } from '@rp/contracts';\nexport const used = [ApiError, TXB_ACTIONS];\n",
    );
    expect(errors).toEqual([]);
  });

  it("keeps the sandbox out of an app's code, and lets the app's integration tests use it", async () => {
    const code = "import { startSandbox } from '@rp/sandbox';\nexport const start = startSandbox;\n";
    expect(await lint('apps/txb/src/fixture.ts', code)).toEqual([
      expect.stringContaining('A project tagged with "type:app" can only depend on libs tagged with'),
    ]);
    expect(await lint('apps/txb/src/fixture.int-spec.ts', code)).toEqual([]);
    expect(await lint('apps/txb/test/fixture.int-support.ts', code)).toEqual([]);
  });

  it('refuses a Lua loader of an app of its own (EVALSHA, a NOSCRIPT fallback): runScript in @rp/platform is the one', async () => {
    const code =
      "import type { RedisClient } from '@rp/platform';\nexport const run = (redis: RedisClient) => redis.evalsha('f00', 0);\n";
    expect(await lint('apps/txb/src/fixture.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: .*runScript/),
    ]);
    expect(
      await lint(
        'apps/gateway/src/fixture.ts',
        "export const missing = (e: Error) => e.message.startsWith('NOSCRIPT');\n",
      ),
    ).toEqual([expect.stringMatching(/^no-restricted-syntax: .*runScript/)]);
  });

  it('refuses BullMQ connection options built by an app: bullConnection in @rp/platform is the one', async () => {
    const errors = await lint(
      'apps/notifications/src/delivery/fixture.ts',
      "import type { ConnectionOptions } from 'bullmq';\nexport type C = ConnectionOptions;\n",
    );
    expect(errors).toEqual([expect.stringMatching(/no-restricted-imports: .*bullConnection/)]);
  });

  it('keeps the notifications module root out of its feature folders', async () => {
    const code = "import { notificationsApp } from '../notifications.app';\nexport const app = notificationsApp;\n";
    expect(await lint('apps/notifications/src/monitor/fixture.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: A notifications feature folder never imports the module root/),
    ]);
    expect(await lint('apps/notifications/src/fixture.ts', code.replace('../', './'))).toEqual([]);
  });

  it("builds the notifications Redis seams in a feature's module only, never in a service", async () => {
    const code =
      "import type { RedisClient } from '@rp/platform';\nimport { DestinationLanes } from './destination-lanes';\nexport const lanes = (redis: RedisClient) => new DestinationLanes(redis, 'p:');\n";
    expect(await lint('apps/notifications/src/delivery/fixture.service.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: A Redis seam is a Nest provider/),
    ]);
    expect(await lint('apps/notifications/src/delivery/fixture.module.ts', code)).toEqual([]);
  });
});
