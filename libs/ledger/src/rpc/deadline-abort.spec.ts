import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { LedgerRpc } from './ledger-rpc';
import { LedgerRpcError } from './rpc-errors';

/**
 * An RPC that answers slowly: headers at once, then one byte of the body every 20 ms, so the socket never idles
 * (the HTTP client's idle timeout never fires) and only an abort closes it before the answer would finish.
 */
class TricklingRpc {
  readonly closedEarly: Promise<void>;
  private resolveClosed!: () => void;
  private readonly responses = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server: Server;

  constructor(private readonly bodyMs: number) {
    this.closedEarly = new Promise((resolve) => (this.resolveClosed = resolve));
    this.server = createServer((req, res) => this.answer(req, res));
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const res of this.responses) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    this.responses.add(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    const started = Date.now();
    const trickle = setInterval(() => {
      if (Date.now() - started < this.bodyMs) {
        res.write(' ');
        return;
      }
      clearInterval(trickle);
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { status: 'healthy' } }));
    }, 20);
    this.timers.add(trickle);
    res.on('close', () => {
      clearInterval(trickle);
      if (!res.writableFinished) this.resolveClosed();
    });
  }
}

describe('LedgerRpc deadline', () => {
  let rpc: TricklingRpc;

  afterEach(async () => {
    await rpc.stop();
  });

  it('aborts the request it gives up on: the server sees the connection closed before it answered', async () => {
    // The answer would take 60 s; the deadline is 200 ms. Without the abort, the socket stays open until the end.
    rpc = new TricklingRpc(60_000);
    const url = await rpc.start();
    const client = new LedgerRpc({ rpcUrl: url, timeoutMs: 200, maxAttempts: 1 });
    const started = Date.now();

    const failure = await client.getHealth().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(LedgerRpcError);
    expect(failure).toMatchObject({ kind: 'timeout', attempts: 1 });
    // The close arrives soon after the deadline (the test's own timeout is the bound on a busy machine).
    await rpc.closedEarly;
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('leaves an answer that arrives within the deadline alone', async () => {
    rpc = new TricklingRpc(100);
    const url = await rpc.start();
    const client = new LedgerRpc({ rpcUrl: url, timeoutMs: 20_000, maxAttempts: 1 });

    await expect(client.getHealth()).resolves.toMatchObject({ status: 'healthy' });
  });
});
