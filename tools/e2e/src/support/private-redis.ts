import { ChildProcess, spawn } from 'node:child_process';
import { freePort, redisAnswers } from '@rp/dev';

/** A throw-away `redis-server` on a free loopback port, persistence off, that a test may kill. */
export async function privateRedis(): Promise<{ url: string; process: ChildProcess; kill(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await kill();
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, process: child, kill };
}
