import { BlendPoolReader, LedgerRpc, contractDataKey, poolActivitySince, positionsKey } from '@rp/ledger';
import { Keypair, Networks } from '@stellar/stellar-sdk';
import { type LoadedScenario, type RunningSandbox, UNIT, startSandbox } from '../index';

/**
 * What a risk monitor needs from the RPC, as the SDK and `libs/ledger` see it: pool events naming the users whose
 * positions changed (control API setup calls included, published in the next ledger), positions read 200 keys per
 * `getLedgerEntries`, and oracle prices the control API moves.
 */
describe('sandbox RPC for pool monitoring', () => {
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let rpc: LedgerRpc;
  let reader: BlendPoolReader;
  const wallet = () => Keypair.random().publicKey();
  const calls = (method: string) => sandbox.control.dump().rpcCalls[method] ?? 0;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    scenario = sandbox.scenario as LoadedScenario;
    rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    reader = new BlendPoolReader({ ledger: rpc, simulator: rpc, networkPassphrase: Networks.TESTNET });
    // The scenario's own setup events go out with this ledger.
    sandbox.ledger.closeLedger();
  });

  afterAll(() => sandbox.close());

  it('publishes the pool events of control API positions in the next ledger, naming the user', async () => {
    const user = wallet();
    const before = sandbox.ledger.latest.sequence;
    sandbox.control.setup.openPosition(scenario.pool, {
      user,
      supplyCollateral: [{ asset: scenario.xlm, amount: 100n * UNIT }],
      borrow: [{ asset: scenario.usdc, amount: 5n * UNIT }],
    });
    expect((await poolActivitySince(rpc, [scenario.pool], before)).touched.get(scenario.pool)?.has(user)).toBe(false);

    const closed = sandbox.ledger.closeLedger();
    const activity = await poolActivitySince(rpc, [scenario.pool], closed.sequence);
    expect(activity.touched.get(scenario.pool)?.has(user)).toBe(true);
    const events = await rpc.getEvents({
      filters: [{ type: 'contract', contractIds: [scenario.pool] }],
      startLedger: closed.sequence,
    });
    expect(events.events.map((event) => event.topic[0].sym().toString())).toEqual(['supply_collateral', 'borrow']);
    expect(events.events.every((event) => event.ledger === closed.sequence)).toBe(true);
    // Nothing new in the ledger after.
    sandbox.ledger.closeLedger();
    const later = await poolActivitySince(rpc, [scenario.pool], closed.sequence + 1);
    expect(later.events).toBe(0);
  });

  it('reads positions 200 keys per getLedgerEntries, and refuses more in one request', async () => {
    const users = Array.from({ length: 450 }, () => wallet());
    sandbox.control.setup.openPosition(scenario.pool, {
      user: users[449],
      supplyCollateral: [{ asset: scenario.xlm, amount: 10n * UNIT }],
    });
    const before = calls('getLedgerEntries');
    const positions = await reader.loadPositions(scenario.pool, users);
    expect(calls('getLedgerEntries') - before).toBe(3);
    expect(positions.size).toBe(450);
    expect(positions.get(users[449])?.collateral.size).toBe(1);
    expect(positions.get(users[0])?.collateral.size).toBe(0);

    const keys = users.slice(0, 201).map((user) => contractDataKey(scenario.pool, positionsKey(user)).toXDR('base64'));
    const raw = await fetch(sandbox.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLedgerEntries', params: { keys } }),
    });
    const answer = (await raw.json()) as { error?: { code: number; message: string } };
    expect(answer.error?.code).toBe(-32602);
  });

  it('seeds many positions at once for benchmarks, read back like any other', async () => {
    const users = sandbox.control.setup.newAddresses(1000);
    expect(new Set(users).size).toBe(1000);
    const held = { collateral: new Map([[1, 7n * UNIT]]), liabilities: new Map([[0, 2n * UNIT]]), supply: new Map() };
    sandbox.ledger.closeLedger();
    const before = sandbox.ledger.history.eventsFrom(0).length;
    sandbox.control.setup.seedPositions(scenario.pool, users, held);
    const positions = await reader.loadPositions(scenario.pool, users);
    expect(positions.get(users[999])).toEqual(held);
    expect([...positions.values()].every((p) => p.liabilities.get(0) === 2n * UNIT)).toBe(true);
    sandbox.ledger.closeLedger();
    expect(sandbox.ledger.history.eventsFrom(0).length).toBe(before);
  });

  it('moves oracle prices through the control API', async () => {
    const answer = await fetch(`${sandbox.url}/control/oracles/${scenario.oracle}/prices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: scenario.xlm, price: '2500000' }),
    });
    expect(answer.status).toBe(200);
    const pool = await reader.loadPool(scenario.pool);
    expect((await reader.loadPrices(pool)).prices.get(scenario.xlm)?.price).toBe(2_500_000n);
  });
});
