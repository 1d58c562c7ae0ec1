import { Account, Keypair, Networks, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { type AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { Registry } from 'prom-client';
import { LedgerRpc, type LedgerRpcOptions } from './ledger-rpc';
import { LedgerRpcError, NetworkMismatchError } from './rpc-errors';
import { RPC_DURATION_METRIC } from './rpc-metrics';

interface RpcRequest {
  method: string;
  params: Record<string, unknown> | null;
}

type Reply =
  | { result: unknown }
  | { error: { code: number; message: string } }
  | { status: number; headers?: Record<string, string> }
  | 'hang';

/** A JSON-RPC endpoint on 127.0.0.1 that answers each request with whatever the test's script says. */
class ScriptedRpc {
  readonly requests: RpcRequest[] = [];
  private readonly server: Server;

  constructor(private readonly script: (request: RpcRequest, n: number) => Reply) {
    this.server = createServer((req, res) => {
      void readBody(req).then((body) => {
        const request = JSON.parse(body) as RpcRequest & { id: number };
        this.requests.push({ method: request.method, params: request.params });
        const reply = this.script(request, this.requests.length);
        if (reply === 'hang') return;
        if ('status' in reply) {
          res.writeHead(reply.status, reply.headers).end('unavailable');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...reply }));
      });
    });
  }

  async start(path = '/'): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => resolve(body));
  });
}

/** A URL nothing listens on: bind a port, then free it. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/`;
}

const LATEST = { result: { id: 'ab', sequence: 42, protocolVersion: 23 } };
const HEALTHY = { result: { status: 'healthy', latestLedger: 42, oldestLedger: 1, ledgerRetentionWindow: 17280 } };

const servers: ScriptedRpc[] = [];
async function serve(script: (request: RpcRequest, n: number) => Reply, path?: string): Promise<[ScriptedRpc, string]> {
  const server = new ScriptedRpc(script);
  servers.push(server);
  return [server, await server.start(path)];
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * Short backoff, so retries cost nothing; the default 10 s attempt deadline, so that an answering stand-in is never
 * taken for a silent one on a busy machine (only the hung-endpoint case sets a short deadline: nothing answers it).
 */
const fast = (options: LedgerRpcOptions): LedgerRpc => new LedgerRpc({ backoffMs: 5, ...options });

function signedTx(): ReturnType<TransactionBuilder['build']> {
  const keypair = Keypair.random();
  const tx = new TransactionBuilder(new Account(keypair.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.bumpSequence({ bumpTo: '5' }))
    .setTimeout(30)
    .build();
  tx.sign(keypair);
  return tx;
}

async function rejection(promise: Promise<unknown>): Promise<LedgerRpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LedgerRpcError);
  return error as LedgerRpcError;
}

describe('LedgerRpc', () => {
  it('retries a 503 with backoff, then succeeds', async () => {
    const [server, url] = await serve((_, n) => (n < 3 ? { status: 503 } : LATEST));
    await expect(fast({ rpcUrl: url }).getLatestLedger()).resolves.toMatchObject({ sequence: 42 });
    expect(server.requests).toHaveLength(3);
  });

  it('fails over to the fallback when the primary refuses connections, and rests the primary', async () => {
    const primary = await refusedUrl();
    const [server, fallback] = await serve(() => HEALTHY);
    const registry = new Registry();
    const client = fast({ rpcUrl: primary, fallbackRpcUrls: [fallback], registry });
    await expect(client.getHealth()).resolves.toMatchObject({ status: 'healthy' });
    await expect(client.getHealth()).resolves.toMatchObject({ status: 'healthy' });
    expect(server.requests).toHaveLength(2);
    const counts = await observationCounts(registry);
    expect(counts).toEqual({
      [`getHealth ${new URL(primary).origin} unreachable`]: 1,
      [`getHealth ${new URL(fallback).origin} success`]: 2,
    });
  });

  it('on a 429, moves to the next endpoint and rests the first for its Retry-After, not the cooldown', async () => {
    const [limited, primary] = await serve(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const [, fallback] = await serve(() => LATEST);
    const client = fast({ rpcUrl: `${primary},${fallback}`, cooldownMs: 1 });
    await expect(client.getLatestLedger()).resolves.toMatchObject({ sequence: 42 });
    // A 1 ms cooldown would have ended by now; the endpoint's own 600 s keeps it out.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.getLatestLedger();
    expect(limited.requests).toHaveLength(1);
    expect(client.originInUse()).toBe(new URL(fallback).origin);
    expect(client.endpoints()[0]).toMatchObject({ origin: new URL(primary).origin, resting: 'failure' });
  });

  it('moves off an endpoint whose latest ledger stands still while another one is ahead', async () => {
    const [, primary] = await serve(() => LATEST);
    const [, fallback] = await serve(() => ({ result: { id: 'cd', sequence: 50, protocolVersion: 23 } }));
    const client = fast({ rpcUrl: `${primary},${fallback}`, staleAfterMs: 0 });
    await expect(client.getLatestLedger()).resolves.toMatchObject({ sequence: 50 });
    expect(client.originInUse()).toBe(new URL(fallback).origin);
    expect(client.endpoints()).toEqual([
      { origin: new URL(primary).origin, inUse: false, resting: 'stale', latestLedger: 42 },
      { origin: new URL(fallback).origin, inUse: true, resting: null, latestLedger: 50 },
    ]);
  });

  it('keeps a stalled endpoint when no other one is ahead (the network stands still)', async () => {
    const [primaryServer, primary] = await serve(() => LATEST);
    const [, fallback] = await serve(() => LATEST);
    const client = fast({ rpcUrl: `${primary},${fallback}`, staleAfterMs: 0 });
    await client.getLatestLedger();
    await client.getLatestLedger();
    expect(primaryServer.requests.map((request) => request.method)).toEqual(['getLatestLedger', 'getLatestLedger']);
    expect(client.originInUse()).toBe(new URL(primary).origin);
  });

  it('names the endpoint in use in the in-use gauge, by origin', async () => {
    const primary = await refusedUrl();
    const [, fallback] = await serve(() => HEALTHY);
    const registry = new Registry();
    const client = fast({ rpcUrl: `${primary},${fallback}/key-in-path`, registry });
    await client.getHealth();
    const gauge = (await registry.getMetricsAsJSON()).find((metric) => metric.name === 'ledger_rpc_endpoint_in_use');
    expect(gauge?.values).toEqual([
      { labels: { origin: new URL(primary).origin }, value: 0 },
      { labels: { origin: new URL(fallback).origin }, value: 1 },
    ]);
    expect(await registry.metrics()).not.toContain('key-in-path');
  });

  it('gives up on a hung endpoint quickly with kind "timeout"', async () => {
    const [, url] = await serve(() => 'hang');
    const started = Date.now();
    const error = await rejection(fast({ rpcUrl: url, timeoutMs: 100, maxAttempts: 2 }).getLatestLedger());
    expect(error).toMatchObject({
      kind: 'timeout',
      method: 'getLatestLedger',
      endpoint: new URL(url).origin,
      attempts: 2,
    });
    // Two attempts of 100 ms, not a hang; room for a busy machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('resends the same envelope on TRY_AGAIN_LATER', async () => {
    const tx = signedTx();
    const hash = tx.hash().toString('hex');
    const base = { hash, latestLedger: 42, latestLedgerCloseTime: '0' };
    const [server, url] = await serve((_, n) => ({
      result: { ...base, status: n < 2 ? 'TRY_AGAIN_LATER' : 'PENDING' },
    }));
    await expect(fast({ rpcUrl: url }).sendTransaction(tx)).resolves.toMatchObject({ status: 'PENDING', hash });
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.params?.['transaction'])).toEqual([tx.toXDR(), tx.toXDR()]);
  });

  it('reports kind "try-again-later" when the node stays busy', async () => {
    const [server, url] = await serve(() => ({
      result: { hash: 'h', status: 'TRY_AGAIN_LATER', latestLedger: 1, latestLedgerCloseTime: '0' },
    }));
    const error = await rejection(fast({ rpcUrl: url, maxAttempts: 3 }).sendTransaction(signedTx()));
    expect(error).toMatchObject({ kind: 'try-again-later', attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry an invalid-params error, and keeps the request body out of the message', async () => {
    const [server, url] = await serve(() => ({ error: { code: -32602, message: 'invalid parameters' } }));
    const tx = signedTx();
    const error = await rejection(fast({ rpcUrl: url }).sendTransaction(tx));
    expect(error).toMatchObject({ kind: 'rejected', rpcCode: -32602, rpcMessage: 'invalid parameters', attempts: 1 });
    expect(server.requests).toHaveLength(1);
    expect(error.message).not.toContain(tx.toXDR());
    expect(error.message).not.toContain(tx.toXDR().slice(0, 40));
  });

  it('splits 450 keys into requests of 200, 200 and 50 and merges the answers', async () => {
    const [server, url] = await serve((request, n) => {
      const keys = (request.params?.['keys'] ?? []) as string[];
      const entries = keys.map((key) => ({
        key,
        xdr: xdr.LedgerEntryData.ttl(
          new xdr.TtlEntry({ keyHash: xdr.LedgerKey.fromXDR(key, 'base64').ttl().keyHash(), liveUntilLedgerSeq: 99 }),
        ).toXDR('base64'),
        lastModifiedLedgerSeq: 7,
      }));
      return { result: { entries, latestLedger: 100 + n } };
    });
    const keys = Array.from({ length: 450 }, (_, i) => {
      const keyHash = Buffer.alloc(32);
      keyHash.writeUInt32BE(i);
      return xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash }));
    });
    const answer = await fast({ rpcUrl: url }).getLedgerEntries(keys);
    expect(server.requests.map((r) => (r.params?.['keys'] as string[]).length).sort()).toEqual([200, 200, 50].sort());
    expect(answer.entries).toHaveLength(450);
    expect(new Set(answer.entries.map((e) => e.key.toXDR('base64')))).toEqual(
      new Set(keys.map((k) => k.toXDR('base64'))),
    );
    expect(answer.latestLedger).toBe(101);
  });

  it('sends raw keys 200 per request, answers them undecoded, and retries and classifies them like any call', async () => {
    const [server, url] = await serve((request, n) => {
      if (n === 1) return { status: 503 };
      const keys = (request.params?.['keys'] ?? []) as string[];
      if (keys.includes('bad')) return { error: { code: -32602, message: 'cannot unmarshal key value' } };
      return { result: { entries: keys.map((key) => ({ key, xdr: `data:${key}` })), latestLedger: 100 + n } };
    });
    const rpc = fast({ rpcUrl: url });
    const keys = Array.from({ length: 450 }, (_, i) => `key${i}`);
    const answer = await rpc.getLedgerEntriesRaw(keys);
    // One of the three chunks met the 503 and was sent again.
    expect(server.requests).toHaveLength(4);
    expect(server.requests.map((r) => (r.params?.['keys'] as string[]).length).sort()).toEqual([200, 200, 200, 50]);
    expect(answer.entries?.map((entry) => entry.xdr).sort()).toEqual(keys.map((key) => `data:${key}`).sort());
    expect(answer.latestLedger).toBeGreaterThanOrEqual(102);
    expect((await rpc.getLedgerEntriesRaw(['key1'])).entries).toEqual([{ key: 'key1', xdr: 'data:key1' }]);
    const error = await rejection(rpc.getLedgerEntriesRaw(['bad']));
    expect(error).toMatchObject({ kind: 'rejected', rpcCode: -32602, attempts: 1 });
  });

  it('records each attempt in the histogram by method, endpoint origin and outcome', async () => {
    const [, url] = await serve((_, n) => (n === 1 ? { status: 429 } : LATEST), '/rpc/api-key-123');
    const registry = new Registry();
    const client = fast({ rpcUrl: url, registry });
    fast({ rpcUrl: url, registry }); // a second client on the same registry reuses the histogram
    await client.getLatestLedger();
    const origin = new URL(url).origin;
    expect(await observationCounts(registry)).toEqual({
      [`getLatestLedger ${origin} unreachable`]: 1,
      [`getLatestLedger ${origin} success`]: 1,
    });
    expect(await registry.metrics()).not.toContain('api-key-123');
  });

  it('checks the network the RPC serves', async () => {
    const [, url] = await serve(() => ({ result: { passphrase: Networks.TESTNET, protocolVersion: 23 } }));
    await expect(fast({ rpcUrl: url, network: 'ledger:testnet' }).assertNetwork()).resolves.toBeUndefined();
    await expect(fast({ rpcUrl: url, network: 'ledger:pubnet' }).assertNetwork()).rejects.toBeInstanceOf(
      NetworkMismatchError,
    );
    await expect(fast({ rpcUrl: url }).networkPassphrase()).resolves.toBe(Networks.TESTNET);
  });
});

/** `method endpoint outcome` -> number of observations. */
async function observationCounts(registry: Registry): Promise<Record<string, number>> {
  const [metric] = await registry.getMetricsAsJSON();
  expect(metric.name).toBe(RPC_DURATION_METRIC);
  const counts: Record<string, number> = {};
  for (const value of metric.values) {
    if (!('metricName' in value) || value.metricName !== `${RPC_DURATION_METRIC}_count`) continue;
    counts[`${value.labels['method']} ${value.labels['endpoint']} ${value.labels['outcome']}`] = value.value;
  }
  return counts;
}

describe('an RPC URL holding credentials (userinfo, path, query)', () => {
  const SECRETS = ['rpc-user', 's3cret-pass', 'PATH-KEY-123', 'QUERY-KEY-456'];
  const withCredentials = (origin: string) =>
    `${origin.replace('http://', 'http://rpc-user:s3cret-pass@')}/rpc/PATH-KEY-123?apiKey=QUERY-KEY-456`;

  /** Everything a log line or a metrics scrape could show of an error: message, stack, every enumerable field. */
  function shown(error: unknown): string {
    const fields = error instanceof Error ? { ...error, message: error.message, stack: error.stack } : error;
    return `${String(error)} ${JSON.stringify(fields)}`;
  }

  it('shows only the origin in errors and metric labels when the endpoint answers 503', async () => {
    const [, url] = await serve(() => ({ status: 503 }));
    const origin = new URL(url).origin;
    const registry = new Registry();
    const error = await fast({ rpcUrl: withCredentials(origin), registry, maxAttempts: 2 })
      .getHealth()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerRpcError);
    expect((error as LedgerRpcError).endpoint).toBe(origin);
    const metrics = await registry.metrics();
    expect(metrics).toContain(`endpoint="${origin}"`);
    for (const secret of SECRETS) {
      expect(shown(error)).not.toContain(secret);
      expect(metrics).not.toContain(secret);
    }
  });

  it("never lets the HTTP client's own error (which holds the full URL) escape, even for an answer that is not HTTP", async () => {
    const garbage = createTcpServer((socket) => socket.on('data', () => socket.end('garbage\r\n\r\n')));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
      const error = await fast({ rpcUrl: withCredentials(origin), maxAttempts: 1 })
        .getHealth()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LedgerRpcError);
      expect(error).toMatchObject({ kind: 'unreachable', endpoint: origin });
      for (const secret of SECRETS) expect(shown(error)).not.toContain(secret);
    } finally {
      await new Promise((resolve) => garbage.close(resolve));
    }
  });

  it('refuses a URL that does not parse without echoing it', () => {
    let error: unknown;
    try {
      new LedgerRpc({ rpcUrl: 'http://rpc-user:s3cret-pass@[bad/QUERY-KEY-456' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    for (const secret of SECRETS) expect(shown(error)).not.toContain(secret);
  });
});
