import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Forwards every connection on a free loopback port to `TARGET_PORT`, prints the port, runs until killed. */
const SCRIPT = `
const net = require('node:net');
const target = Number(process.env.TARGET_PORT);
const server = net.createServer((client) => {
  const upstream = net.connect(target, '127.0.0.1');
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));
`;

export interface TcpForwarder {
  readonly port: number;
  /** SIGKILL: the process dies as a crashed RPC node would, its connections cut, its port refusing. */
  kill(): Promise<void>;
}

/**
 * A plain TCP forwarder as a process of its own in front of `targetPort` (TLS passes through untouched): a second
 * RPC endpoint of the same ledger that a test can kill (two sandboxes cannot share a ledger).
 */
export async function startTcpForwarder(targetPort: number): Promise<TcpForwarder> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT], {
    env: { PATH: process.env['PATH'], TARGET_PORT: String(targetPort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    if (!child.stdout) return reject(new Error('the forwarder has no stdout'));
    createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(line)));
    child.once('exit', (code) => reject(new Error(`the forwarder exited with ${code}`)));
  });
  return {
    port,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
