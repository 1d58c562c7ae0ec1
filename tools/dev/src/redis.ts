import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Socket } from 'node:net';
import { freePort } from './ports';

/** True when something at `url` answers PING with PONG within a second. */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH')));
    socket.connect(Number(port || 6379), hostname || '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface RedisHandle {
  url: string;
  /** Set when the launcher started this Redis and must stop it. */
  process?: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Redis at `url` if it answers; otherwise a throw-away `redis-server` on a free loopback port with persistence
 * off, if one is installed; otherwise an error that says how to get Redis.
 */
export async function ensureRedis(url: string): Promise<RedisHandle> {
  if (await redisAnswers(url)) return { url, stop: async () => undefined };
  if (!redisServerInstalled()) {
    throw new Error(
      `Redis is not answering at ${url} and redis-server is not installed.\n` +
        '  Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis),\n' +
        '  or point REDIS_URL at a running Redis (redis://host:port).',
    );
  }
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore', detached: true },
  );
  const started = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(started))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    url: started,
    process: child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
