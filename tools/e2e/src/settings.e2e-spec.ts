/**
 * A bad setting stops every app before it binds a port: one line on stderr naming it, exit status 78. So does a
 * missing INTERNAL_TOKEN in production, for the gateway and every service.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { WORKSPACE_ROOT, checkSettings } from '@rp/dev';
import { ALL_APPS, AppName, baseEnv, startApp } from './support/running-apps';

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

describe.each(['gateway', 'subscription', 'txb', 'notifications'] as const)(
  'the %s app with NODE_ENV=production and no INTERNAL_TOKEN',
  (app) => {
    it('exits with status 78 and one line naming INTERNAL_TOKEN', async () => {
      const { code, stderr, stdout } = await run(app, { NODE_ENV: 'production', INTERNAL_TOKEN: '' });
      expect(code).toBe(78);
      expect(stderr).toMatch(
        new RegExp(`^${app}: invalid configuration: .*INTERNAL_TOKEN is required when NODE_ENV is production.*\\n$`),
      );
      expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(stdout).toBe('');
    }, 30_000);
  },
);

describe('the agent in production', () => {
  it('starts without an INTERNAL_TOKEN and serves nothing under /api/v1, where the gateway forwards', async () => {
    // The check every service fails above: the agent's settings pass it.
    expect(() => checkSettings('agent', { ...baseEnv('agent'), NODE_ENV: 'production' })).not.toThrow();
    // And the process itself runs: no INTERNAL_TOKEN, and no route a gateway could forward to.
    const agent = await startApp('agent', { NODE_ENV: 'production', INTERNAL_TOKEN: '' });
    try {
      const forwarded = await fetch(`${agent.url}/api/v1/rms/risk/GABC`, { headers: { 'x-request-id': 'prod-agent' } });
      expect(forwarded.status).toBe(404);
      expect(await forwarded.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: 'prod-agent' });
      const posted = await fetch(`${agent.url}/api/v1/txb/build`, { method: 'POST', body: '{}' });
      expect(posted.status).toBe(405);
      expect((await fetch(`${agent.url}/health/ready`)).status).toBe(200);
    } finally {
      await agent.stop();
    }
  }, 90_000);
});
