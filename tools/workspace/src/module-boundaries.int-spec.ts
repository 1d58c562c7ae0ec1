/**
 * The module-boundary lint, proven on fixtures: each snippet is linted as if it were a file at the given path,
 * with the workspace's real ESLint configuration and project graph.
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

  it('refuses a deep import into a library', async () => {
    const errors = await lint(
      'apps/txb/src/fixture.ts',
      "import { ApiError } from '@rp/platform/src/lib/errors/api-error';\nexport const error = ApiError;\n",
    );
    expect(errors).toEqual(expect.arrayContaining([expect.stringContaining('no-restricted-imports: ')]));
  });

  it('accepts an app importing libraries through their entry points', async () => {
    const errors = await lint(
      'apps/txb/src/fixture.ts',
      "import { ApiError } from '@rp/platform';\nimport { TXB_ACTIONS } from '@rp/contracts';\nexport const used = [ApiError, TXB_ACTIONS];\n",
    );
    expect(errors).toEqual([]);
  });
});
