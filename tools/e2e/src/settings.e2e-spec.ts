/** A bad setting stops every app before it binds a port: one line on stderr naming it, exit status 78. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@rp/dev';
import { ALL_APPS, AppName, baseEnv } from './support/running-apps';

function run(
  app: AppName,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'tools/dev/bin/run-app.cjs'), app], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...baseEnv(app), ...env },
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe.each(ALL_APPS)('the %s app with PORT=abc', (app) => {
  it('exits with status 78 and one line naming PORT', async () => {
    const { code, stderr, stdout } = await run(app, { PORT: 'abc' });
    expect(code).toBe(78);
    expect(stderr).toBe(`${app}: invalid configuration: PORT must be an integer between 1 and 65535 (got "abc")\n`);
    expect(stdout).toBe('');
  }, 30_000);
});

describe('a malformed secret setting', () => {
  it('is named without its value', async () => {
    const mnemonic = 'Correct Horse Battery Staple';
    const { code, stderr } = await run('agent', { LEDGER_MNEMONIC: mnemonic });
    expect(code).toBe(78);
    expect(stderr).toBe(
      'agent: invalid configuration: LEDGER_MNEMONIC must be 12 to 24 lower-case words separated by single spaces (value hidden)\n',
    );
  }, 30_000);
});
