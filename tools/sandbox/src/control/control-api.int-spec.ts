import { Keypair, rpc } from '@stellar/stellar-sdk';
import { LedgerRpc, LedgerRpcError } from '@rp/ledger';
import { startSandbox, type RunningSandbox } from '../index';

/**
 * The control API over real HTTP, and its RPC faults as the SDK and `libs/ledger` see them: setup calls change the
 * ledger, bad input is a 400 that changes nothing, faults hit the next calls only, reset starts over.
 */
describe('sandbox control API', () => {
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  });

  afterAll(() => sandbox.close());

  async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it("sets a pool's status, and refuses one Blend does not have", async () => {
    const pool = (sandbox.scenario as { pool: string }).pool;
    expect((await post(`/control/pools/${pool}/status`, { status: 3 })).json).toMatchObject({ pool, status: 3 });
    expect((await post(`/control/pools/${pool}/status`, { status: 9 })).status).toBe(400);
    await post(`/control/pools/${pool}/status`, { status: 0 });
  });

  it("stops an oracle asset's feed as if long ago, keeps the others fresh, and the keeper restamps it once restarted", async () => {
    const { oracle, xlm, usdc } = sandbox.scenario as { oracle: string; xlm: string; usdc: string };
    const age = (feed: Record<string, unknown>, asset: string) =>
      (feed['prices'] as { asset: string; ageSeconds: number; running: boolean }[]).find((p) => p.asset === asset);
    const stopped = await post(`/control/oracles/${oracle}/feed`, { running: false, asset: xlm, ageSeconds: 600 });
    expect(stopped.status).toBe(200);
    expect(stopped.json).toMatchObject({ oracle, running: true, heartbeatSeconds: 30 });
    expect(age(stopped.json, xlm)).toMatchObject({ ageSeconds: 600, running: false });
    expect(age(stopped.json, usdc)).toMatchObject({ running: true });

    // A ledger closes: the stopped feed is not published again; the running one stays fresh.
    await post('/control/ledger/close', {});
    const feeds = (await (await fetch(`${sandbox.url}/control/oracles/feeds`)).json()) as Record<string, unknown>[];
    const feed = feeds.find((f) => f['oracle'] === oracle) as Record<string, unknown>;
    expect(age(feed, xlm)?.ageSeconds).toBeGreaterThanOrEqual(600);
    expect(age(feed, usdc)?.ageSeconds).toBeLessThan(30);

    // Restarted: the next close publishes the price again, stamped with that close.
    expect(age((await post(`/control/oracles/${oracle}/feed`, { running: true, asset: xlm })).json, xlm)).toMatchObject(
      { running: true },
    );
    await post('/control/ledger/close', {});
    const restamped = sandbox.control.keeper.feed(oracle).prices.find((p) => p.asset === xlm);
    expect(restamped?.timestamp).toBe(sandbox.ledger.latest.closeTime.toString());
    expect(restamped?.price).toBe('3000000');
  });

  it('stops and restarts a whole oracle, and refuses what it cannot stop', async () => {
    const { oracle } = sandbox.scenario as { oracle: string };
    const stopped = await post(`/control/oracles/${oracle}/feed`, { running: false, ageSeconds: 120 });
    expect(stopped.json).toMatchObject({ running: false });
    expect((stopped.json['prices'] as { ageSeconds: number; running: boolean }[]).every((p) => !p.running)).toBe(true);
    await post('/control/ledger/close', {});
    expect(sandbox.control.keeper.feed(oracle).prices.every((p) => p.ageSeconds >= 120)).toBe(true);
    await post(`/control/oracles/${oracle}/feed`, { running: true });
    await post('/control/ledger/close', {});
    expect(sandbox.control.keeper.feed(oracle).prices.every((p) => p.running && p.ageSeconds < 30)).toBe(true);

    const pool = (sandbox.scenario as { pool: string }).pool;
    expect(await post(`/control/oracles/${pool}/feed`, { running: false })).toEqual({
      status: 400,
      json: { error: `no sandbox oracle at ${pool}` },
    });
    expect((await post(`/control/oracles/${oracle}/feed`, { running: 'no' })).status).toBe(400);
    expect((await post(`/control/oracles/${oracle}/feed`, { running: false, ageSeconds: -1 })).status).toBe(400);
    expect((await post(`/control/oracles/${oracle}/feed`, { running: true, ageSeconds: 5 })).status).toBe(400);
    expect((await post(`/control/oracles/${oracle}/feed`, { running: false, asset: pool })).status).toBe(400);
    expect(sandbox.control.keeper.feed(oracle).running).toBe(true);
  });

  it('funds an account, deploys and mints a token, and the ledger shows it', async () => {
    const holder = Keypair.random().publicKey();
    expect((await post('/control/accounts', { address: holder, stroops: '50000000' })).status).toBe(200);
    const token = await post('/control/tokens', { symbol: 'EURC', decimals: 7 });
    const contractId = String(token.json['contractId']);
    expect((await post(`/control/tokens/${contractId}/mint`, { to: holder, amount: '1234' })).status).toBe(200);

    const account = await new rpc.Server(sandbox.rpcUrl, { allowHttp: true }).getAccount(holder);
    expect(account.accountId()).toBe(holder);
    expect(sandbox.ledger.account(holder)?.balance).toBe(50_000_000n);
    expect(sandbox.control.setup.balance(contractId, holder)).toBe(1234n);
  });

  it('answers bad input with a 400 naming the field and changes nothing', async () => {
    const before = sandbox.control.directory.tokens.length;
    expect(await post('/control/accounts', { address: 'GNOTANADDRESS' })).toEqual({
      status: 400,
      json: { error: 'address must be a G-address' },
    });
    expect((await post('/control/tokens', { symbol: '' })).status).toBe(400);
    expect((await post('/control/tokens', '{"symbol":')).json).toEqual({ error: 'body is not valid JSON' });
    const usdc = sandbox.scenario?.usdc ?? '';
    expect(await post(`/control/tokens/${usdc}/mint`, { to: Keypair.random().publicKey(), amount: '-5' })).toEqual({
      status: 400,
      json: { error: 'amount must be a non-negative integer string in base units' },
    });
    expect((await post('/control/faults', { kind: 'explode' })).status).toBe(400);
    expect(sandbox.control.directory.tokens.length).toBe(before);
  });

  it('injects RPC faults for the next calls only: libs/ledger retries through them', async () => {
    const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, backoffMs: 1, maxAttempts: 3 });
    expect((await post('/control/faults', { kind: 'http-error', method: 'getLatestLedger', count: 2 })).status).toBe(
      200,
    );
    expect((await ledger.getLatestLedger()).sequence).toBe(sandbox.ledger.latest.sequence);

    await post('/control/faults', { kind: 'rpc-error', method: 'getHealth', count: 'forever' });
    const failure = await ledger.getHealth().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LedgerRpcError);
    expect(await fetch(`${sandbox.url}/control/faults`, { method: 'DELETE' }).then((r) => r.status)).toBe(200);
    expect((await ledger.getHealth()).status).toBe('healthy');
  });

  it('closes ledgers on demand and resets to the scenario', async () => {
    const sequence = sandbox.ledger.latest.sequence;
    expect((await post('/control/ledger/close', { count: 3 })).json['sequence']).toBe(sequence + 3);
    expect((await post('/control/ledger/close', { count: 0 })).status).toBe(400);

    const reset = await post('/control/reset', {});
    expect(reset.json['pool']).toBe(sandbox.scenario?.pool);
    expect(sandbox.ledger.latest.sequence).toBe(1);
    expect(sandbox.control.directory.tokens.map((token) => token.symbol)).toEqual(['USDC', 'XLM']);
  });
});
