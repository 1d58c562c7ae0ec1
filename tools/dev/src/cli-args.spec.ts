import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';

/** The workspace's command-line scripts, run as the README says, parsing their arguments with `node:util`. */
const scripts = {
  bench: 'tools/bench/bin/bench.cjs',
  settings: 'tools/dev/bin/settings.cjs',
  'run-app': 'tools/dev/bin/run-app.cjs',
};

function run(script: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(WORKSPACE_ROOT, script), ...args], {
    cwd: WORKSPACE_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each(Object.entries(scripts))('%s', (name, script) => {
  it('prints its usage with --help and -h, and exits 0', () => {
    for (const flag of ['--help', '-h']) {
      const { status, stdout } = run(script, [flag]);
      expect(status).toBe(0);
      expect(stdout).toMatch(new RegExp(`^usage: ${name}\\.cjs `));
      expect(stdout).toContain('-h, --help');
    }
  });

  it('refuses an unknown option and an unknown or extra argument with its usage and exit 64', () => {
    for (const args of [['--nope'], ['nope'], ['gateway', 'extra']]) {
      const { status, stdout, stderr } = run(script, args);
      expect({ args, status }).toEqual({ args, status: 64 });
      expect(stderr).toContain(`usage: ${name}.cjs`);
      expect(stdout).toBe('');
    }
  });
});

describe('npm run settings', () => {
  it('lists an app’s settings as JSON through the npm script', () => {
    const result = spawnSync('npm', ['run', '--silent', 'settings', '--', 'gateway', '--json'], {
      cwd: WORKSPACE_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(0);
    const settings = JSON.parse(result.stdout) as { name: string }[];
    expect(settings.map((setting) => setting.name)).toContain('SUBSCRIPTION_URL');
  });

  it('has scripts for the sandbox alone and the benchmarks', () => {
    const { scripts: npmScripts } = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(npmScripts).toMatchObject({
      sandbox: 'node tools/sandbox/bin/sandbox.cjs',
      bench: 'node tools/bench/bin/bench.cjs',
      settings: 'node tools/dev/bin/settings.cjs',
    });
  });
});
