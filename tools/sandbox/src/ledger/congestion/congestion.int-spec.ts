import { Keypair, Operation, Transaction, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { startSandbox, type RunningSandbox } from '../../index';

/**
 * The congestion model through the unmodified SDK over JSON-RPC and the control API over HTTP: the per-ledger
 * Soroban limit, surge pricing (order and fee charged), expiry of waiting transactions, getFeeStats, the storm.
 */
describe('sandbox congestion', () => {
  let sandbox: RunningSandbox;
  let server: rpc.Server;
  let token: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0, scenario: 'empty' });
    server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
    token = ((await control('POST', '/control/tokens', { symbol: 'CALL' })).json as { contractId: string }).contractId;
  });

  afterAll(() => sandbox.close());

  afterEach(async () => {
    await control('DELETE', '/control/congestion');
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 1000 });
    await closeLedgers(1); // whatever still waits goes in: each test starts with an empty queue
  });

  async function control(method: string, path: string, body?: unknown) {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  const closeLedgers = (count: number) => control('POST', '/control/ledger/close', { count });

  async function funded(): Promise<Keypair> {
    const keypair = Keypair.random();
    await control('POST', '/control/accounts', { address: keypair.publicKey() });
    return keypair;
  }

  /** A signed call bidding `inclusionFee` stroops (the SDK adds the simulated resource fee on top). */
  async function call(
    keypair: Keypair,
    inclusionFee: number,
    bounds: { timeoutSeconds?: number; maxLedger?: number } = {},
  ): Promise<Transaction> {
    const account = await server.getAccount(keypair.publicKey());
    const builder = new TransactionBuilder(account, {
      fee: String(inclusionFee),
      networkPassphrase: sandbox.ledger.passphrase,
      ...(bounds.maxLedger !== undefined && { ledgerbounds: { minLedger: 0, maxLedger: bounds.maxLedger } }),
    })
      .addOperation(Operation.invokeContractFunction({ contract: token, function: 'decimals', args: [] }))
      .setTimeout(bounds.timeoutSeconds ?? 300);
    const prepared = await server.prepareTransaction(builder.build());
    prepared.sign(keypair);
    return prepared;
  }

  async function send(tx: Transaction): Promise<string> {
    const sent = await server.sendTransaction(tx);
    expect(sent.status).toBe('PENDING');
    return sent.hash;
  }

  /** The inclusion fee charged: the fee in the result less the resource fee the envelope declared. */
  async function landed(hash: string, tx: Transaction): Promise<{ ledger: number; inclusionFee: bigint }> {
    const outcome = await server.getTransaction(hash);
    expect(outcome.status).toBe(rpc.Api.GetTransactionStatus.SUCCESS);
    const success = outcome as rpc.Api.GetSuccessfulTransactionResponse;
    const resourceFee = BigInt(tx.toEnvelope().v1().tx().ext().sorobanData().resourceFee().toString());
    return { ledger: success.ledger, inclusionFee: BigInt(success.resultXdr.feeCharged().toString()) - resourceFee };
  }

  const status = async (hash: string) => (await server.getTransaction(hash)).status;

  it('when the limit binds, includes the highest bids first (ties by arrival) and charges the lowest included bid', async () => {
    expect((await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 2 })).json).toEqual({
      maxSorobanTransactions: 2,
    });
    const [a, b, c, d] = await Promise.all([funded(), funded(), funded(), funded()]);
    const txs = [await call(a, 200), await call(b, 500), await call(c, 300), await call(d, 300)];
    const hashes: string[] = [];
    for (const tx of txs) hashes.push(await send(tx)); // arrival order: a, b, c, d
    const first = (await closeLedgers(1)).json.sequence as number;

    // b (500) and c (300, arrived before d) get in; both pay 300, the lowest bid included.
    expect(await landed(hashes[1], txs[1])).toEqual({ ledger: first, inclusionFee: 300n });
    expect(await landed(hashes[2], txs[2])).toEqual({ ledger: first, inclusionFee: 300n });
    expect(await status(hashes[0])).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
    expect(await status(hashes[3])).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
    expect((await control('GET', '/control/congestion')).json).toMatchObject({ queued: 2 });

    // The two that waited fit the next ledger: the limit does not bind, so each pays the network minimum.
    await closeLedgers(1);
    expect(await landed(hashes[3], txs[3])).toEqual({ ledger: first + 1, inclusionFee: 100n });
    expect(await landed(hashes[0], txs[0])).toEqual({ ledger: first + 1, inclusionFee: 100n });
  });

  it('drops a waiting transaction once its maxLedger or maxTime passes: getTransaction answers NOT_FOUND', async () => {
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 1 });
    const [high, byLedger, byTime] = await Promise.all([funded(), funded(), funded()]);
    const next = sandbox.ledger.latest.sequence + 1;
    const highTx = await call(high, 1_000);
    const ledgerBound = await call(byLedger, 200, { maxLedger: next });
    const timeBound = await call(byTime, 150, { timeoutSeconds: 4 });
    const hashes = [await send(highTx), await send(ledgerBound), await send(timeBound)];
    await closeLedgers(1); // high goes in; the others wait
    expect((await landed(hashes[0], highTx)).ledger).toBe(next);
    expect(sandbox.ledger.pendingCount).toBe(2);

    // Wait on the clock itself (not a fixed sleep) until the time bound has passed.
    const maxTime = Number(timeBound.timeBounds?.maxTime);
    while (Math.floor(Date.now() / 1000) <= maxTime) await new Promise((resolve) => setTimeout(resolve, 100));
    await closeLedgers(3);
    expect(sandbox.ledger.pendingCount).toBe(0);
    expect(await status(hashes[1])).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
    expect(await status(hashes[2])).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
  });

  it('a transaction left out of 4 ledgers leaves the queue (banned 10): the same one re-signed at a higher fee enters', async () => {
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 1 });
    const [low, blocker] = await Promise.all([funded(), funded()]);
    const lowTx = await call(low, 100);
    const lowHash = await send(lowTx);
    // The same operation and sequence number at a higher fee: core's queue keeps one transaction per source.
    const envelope = xdr.TransactionEnvelope.fromXDR(lowTx.toEnvelope().toXDR());
    envelope
      .v1()
      .tx()
      .fee(Number(lowTx.fee) + 900);
    envelope.v1().signatures([]);
    const higher = new Transaction(envelope, sandbox.ledger.passphrase);
    higher.sign(low);
    expect((await server.sendTransaction(higher)).status).toBe('TRY_AGAIN_LATER');
    for (let i = 0; i < 4; i += 1) {
      await send(await call(blocker, 10_000)); // outbids low for one ledger
      await closeLedgers(1);
    }
    expect(sandbox.ledger.queued.map((parsed) => parsed.hash)).not.toContain(lowHash);
    expect((await server.sendTransaction(lowTx)).status).toBe('TRY_AGAIN_LATER'); // banned
    const higherHash = await send(higher);
    await closeLedgers(1);
    expect((await landed(higherHash, higher)).inclusionFee).toBe(100n);
    expect(await status(lowHash)).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
  });

  it('getFeeStats reports the charged inclusion fees of recent ledgers, parsed by the SDK', async () => {
    await closeLedgers(50); // the 50-ledger window now holds no transaction
    const empty = await server.getFeeStats();
    expect(empty.sorobanInclusionFee).toMatchObject({ max: '0', p99: '0', transactionCount: '0', ledgerCount: 0 });

    // One per ledger: while others wait each pays its own bid; the last, alone, pays the minimum.
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 1 });
    const bids = [900, 700, 500, 300, 200];
    const keypairs = await Promise.all(bids.map(() => funded()));
    const txs = await Promise.all(bids.map((bid, i) => call(keypairs[i], bid)));
    // The last is sent two ledgers later: left out of 4 ledgers it would leave the queue (core's timeout).
    for (const tx of txs.slice(0, -1)) await send(tx);
    await closeLedgers(2);
    await send(txs[txs.length - 1]);
    await closeLedgers(bids.length - 2);
    expect(sandbox.ledger.pendingCount).toBe(0);

    const stats = await server.getFeeStats();
    expect(stats.latestLedger).toBe(sandbox.ledger.latest.sequence);
    // charged: 900, 700, 500, 300, 100; nearest rank: p10 = 1st, p30 = 2nd, p50 = 3rd, p70 = 4th, p90 = 5th.
    expect(stats.sorobanInclusionFee).toEqual({
      max: '900',
      min: '100',
      mode: '100',
      p10: '100',
      p20: '100',
      p30: '300',
      p40: '300',
      p50: '500',
      p60: '500',
      p70: '700',
      p80: '700',
      p90: '900',
      p95: '900',
      p99: '900',
      transactionCount: '5',
      ledgerCount: 50,
    });
    expect(stats.inclusionFee.transactionCount).toBe('0');
  });

  it('a storm fills the ledger at its fee: a lower bid waits, a higher one goes first; it ends after its ledgers', async () => {
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 2 });
    const started = await control('POST', '/control/congestion', {
      transactionsPerLedger: 6,
      inclusionFee: 1_000,
      ledgers: 3,
    });
    expect(started).toMatchObject({
      status: 200,
      json: { transactionsPerLedger: 6, inclusionFee: '1000', ledgersLeft: 3 },
    });
    const view = (await control('GET', '/control/congestion')).json;
    expect(view).toMatchObject({ queued: 6, maxSorobanTransactions: 2 });
    expect((view.queue as { storm: boolean; inclusionFeePerOperation: string }[]).every((q) => q.storm)).toBe(true);

    const [low, high] = await Promise.all([funded(), funded()]);
    const lowTx = await call(low, 100);
    const highTx = await call(high, 5_000);
    const lowHash = await send(lowTx);
    const highHash = await send(highTx);
    const first = (await closeLedgers(1)).json.sequence as number;
    // high and one storm transaction get in, both charged the storm's 1000; low waits behind the storm.
    expect(await landed(highHash, highTx)).toEqual({ ledger: first, inclusionFee: 1_000n });
    expect(await status(lowHash)).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
    const stormIn = sandbox.ledger.history.ledger(first)?.transactions.filter((hash) => hash !== highHash) ?? [];
    expect(stormIn).toHaveLength(1);
    expect((await control('GET', '/control/congestion')).json).toMatchObject({ queued: 7 }); // topped up to 6 + low

    await closeLedgers(1);
    expect(await status(lowHash)).toBe(rpc.Api.GetTransactionStatus.NOT_FOUND);
    await closeLedgers(1); // the storm's third ledger: it ends and its waiting transactions leave the queue
    expect((await control('GET', '/control/congestion')).json).toMatchObject({ storm: null, queued: 1 });
    await closeLedgers(1);
    expect((await landed(lowHash, lowTx)).inclusionFee).toBe(100n);
    const stats = await server.getFeeStats();
    expect(stats.sorobanInclusionFee.max).toBe('1000');
  });

  it('DELETE /control/congestion stops the storm and takes its transactions out of the queue', async () => {
    await control('POST', '/control/congestion', { transactionsPerLedger: 4, inclusionFee: '2000', ledgers: 100 });
    expect(sandbox.ledger.pendingCount).toBe(4);
    expect((await control('DELETE', '/control/congestion')).json).toEqual({ storm: null, queued: 0 });
    const before = sandbox.ledger.latest.sequence;
    await closeLedgers(2);
    expect(sandbox.ledger.pendingCount).toBe(0);
    expect(sandbox.ledger.history.ledger(before + 1)?.transactions).toEqual([]);
  });

  it('a storm at the highest fee keeps its accounts funded: it runs its ledgers out', async () => {
    await closeLedgers(50); // earlier tests' fees leave the getFeeStats window
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: 1 });
    const fee = '1000000000'; // 100 XLM: a storm account's first funds (1 000 XLM) last 10 inclusions
    await control('POST', '/control/congestion', { transactionsPerLedger: 2, inclusionFee: fee, ledgers: 50 });
    await closeLedgers(44); // each of the two accounts is included 22 times: 2 200 XLM of fees
    const view = (await control('GET', '/control/congestion')).json;
    expect(view).toMatchObject({ storm: { ledgersLeft: 6, submitted: 46 }, queued: 2 });
    expect(view.stormStopped).toBeUndefined();
    expect((await server.getFeeStats()).sorobanInclusionFee).toMatchObject({
      min: fee,
      max: fee,
      transactionCount: '44',
    });
  });

  it('answers 400 in the error envelope for bad congestion and limit input', async () => {
    const bad = [
      [
        { transactionsPerLedger: 0, inclusionFee: 1000, ledgers: 1 },
        'transactionsPerLedger must be an integer between 1 and 1000',
      ],
      [
        { transactionsPerLedger: 2, inclusionFee: 99, ledgers: 1 },
        'inclusionFee must be an integer number of stroops between 100 and 1000000000',
      ],
      [
        { transactionsPerLedger: 2, inclusionFee: '1e3', ledgers: 1 },
        'inclusionFee must be an integer number of stroops between 100 and 1000000000',
      ],
      [
        { transactionsPerLedger: 2, inclusionFee: 1000, ledgers: 'x' },
        'ledgers must be an integer between 1 and 100000',
      ],
      [
        { transactionsPerLedger: 2.5, inclusionFee: 1000, ledgers: 1 },
        'transactionsPerLedger must be an integer between 1 and 1000',
      ],
    ] as const;
    for (const [body, error] of bad) {
      expect(await control('POST', '/control/congestion', body)).toEqual({ status: 400, json: { error } });
    }
    expect(await control('POST', '/control/congestion', '[1]')).toEqual({
      status: 400,
      json: { error: 'body must be a JSON object' },
    });
    expect(await control('POST', '/control/ledger/limits', { maxSorobanTransactions: -1 })).toEqual({
      status: 400,
      json: { error: 'maxSorobanTransactions must be an integer between 1 and 100000' },
    });
    expect((await control('GET', '/control/ledger/limits')).json).toEqual({ maxSorobanTransactions: 1000 });
    expect(sandbox.ledger.pendingCount).toBe(0);
  });

  it('by default (1000 per ledger) every transaction enters the next ledger at the minimum fee', async () => {
    expect(sandbox.ledger.maxSorobanTransactions).toBe(1000);
    const keypairs = await Promise.all([funded(), funded(), funded()]);
    const txs = await Promise.all(keypairs.map((keypair, i) => call(keypair, 100 + i * 400)));
    const hashes: string[] = [];
    for (const tx of txs) hashes.push(await send(tx));
    const sequence = (await closeLedgers(1)).json.sequence as number;
    for (const [i, tx] of txs.entries()) {
      expect(await landed(hashes[i], tx)).toEqual({ ledger: sequence, inclusionFee: 100n });
    }
  });

  it('the page shows a congestion section whose script parses and whose view answers the queue and fee stats', async () => {
    const page = await (await fetch(`${sandbox.url}/`)).text();
    expect(page).toContain('<h2>Congestion</h2>');
    expect(page).toContain('<button id="storm-start" type="button">Start a storm</button>');
    const script = /<div id="congestion">[\s\S]*?<script>([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
    expect(script).toContain("fetch('/control/congestion')");
    expect(() => new Function(script)).not.toThrow();
    const view = (await control('GET', '/control/congestion')).json;
    expect(view).toMatchObject({ storm: null, queued: 0, queue: [], maxSorobanTransactions: 1000 });
    expect(Object.keys(view.feeStats as object)).toEqual(['sorobanInclusionFee', 'inclusionFee', 'latestLedger']);
  });
});
