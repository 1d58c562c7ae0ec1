import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, redisAnswers } from '@rp/dev';

/**
 * A throw-away `redis-server` with the persistence docs/deployment.md prescribes for BullMQ (append-only file,
 * fsync on every write), which a test may SIGKILL and start again on the same port and data.
 */
export interface PersistentRedis {
  url: string;
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function persistentRedis(): Promise<PersistentRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rp-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const kill = async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ],
      { stdio: 'ignore' },
    );
    const current = child;
    exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    while (!(await redisAnswers(url))) {
      if (Date.now() > deadline || current.exitCode !== null) {
        await kill();
        throw new Error(`redis-server did not start on port ${port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await start();
  return {
    url,
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
