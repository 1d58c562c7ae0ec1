import { LedgerWallet, REQUEST_TYPES, encodeRequest } from '@rp/ledger';
import { randomBytes } from 'node:crypto';
import { Contract, Networks, StrKey, TransactionBuilder, nativeToScVal, rpc, xdr } from '@stellar/stellar-sdk';
import { type RunningSandbox, startSandbox } from '../sandbox';
import { UNIT } from '../control/sandbox-setup';
import { DEMO_ACCOUNTS, type DemoWallet, type LoadedScenario } from '../scenario';
import { HealthHistory, type HealthHistoryView, type PositionSeries } from './health-history';
import { shortAddress } from './message-subject';

/**
 * The series behind the page's chart, on a real sandbox: the health factor read at ledger closes by the pool's
 * math, alert markers from the messages the channel stand-ins receive (one per alert, whatever the number of
 * channels; only for the wallet and pool it names), close markers from the wallet's own repay transactions, and
 * the memory bounds.
 */
describe('the health history behind the page chart', () => {
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let endangered: DemoWallet;
  let history: HealthHistory;

  const series = (view: HealthHistoryView, account: string): PositionSeries | undefined =>
    view.positions.find((p) => p.account === account && p.pool === scenario.pool);
  const mine = () => series(history.view(), endangered.address) as PositionSeries;
  let chat = 4200;
  // A chat per message: the stand-in paces one message per second and chat, as Telegram does.
  const telegram = (text: string) =>
    fetch(`${sandbox.url}/telegram/bot424242:${'C'.repeat(35)}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: (chat += 1), text }),
    });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    scenario = sandbox.scenario as LoadedScenario;
    endangered = scenario.wallets.find((wallet) => wallet.key === 'endangered') as DemoWallet;
    // Reads every position at every close, inside it; keeps 4 points and 3 markers per position.
    history = new HealthHistory(sandbox.ledger, sandbox.control.directory, sandbox.channels.log, {
      points: 4,
      markers: 3,
      positions: 100,
      readIntervalMs: 0,
    });
  });

  afterAll(() => sandbox?.close());

  it('reads each position with debt at ledger closes, with the level bounds; GET /control/health-history serves it', async () => {
    sandbox.ledger.closeLedger();
    const before = mine().points.at(-1)?.healthFactor ?? 0;
    expect(before).toBeGreaterThan(1.1);
    expect(before).toBeLessThan(1.15);
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 2_700_000n); // -10 %
    sandbox.ledger.closeLedger();
    const after = mine().points.at(-1);
    expect(after?.ledger).toBe(sandbox.ledger.latest.sequence);
    expect(after?.healthFactor).toBeCloseTo(before * 0.9, 2);

    // The sandbox's own history reads off the close, on a timer: a reading arrives.
    const read = async () => (await (await fetch(`${sandbox.url}/control/health-history`)).json()) as HealthHistoryView;
    let served = await read();
    for (let tries = 0; !series(served, endangered.address) && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      served = await read();
    }
    expect(served.bounds).toEqual({ medium: 1.5, high: 1.25, critical: 1.1, liquidation: 1 });
    expect(served.ledger).toBe(sandbox.ledger.latest.sequence);
    const point = series(served, endangered.address)?.points.at(-1);
    expect(point?.healthFactor).toBeGreaterThan(1);
    expect(point?.healthFactor).toBeLessThan(1.15);
    // The liquidity provider only supplies: no debt, no health factor, no chart.
    expect(served.positions.map((p) => p.account)).not.toContain(DEMO_ACCOUNTS.liquidityProvider.address);
  });

  it('keeps the last points only', () => {
    for (let i = 0; i < 6; i += 1) sandbox.ledger.closeLedger();
    const points = mine().points;
    expect(points).toHaveLength(4);
    expect(points.at(-1)?.ledger).toBe(sandbox.ledger.latest.sequence);
  });

  it('marks an alert a stand-in received once, on the wallet and pool it names, and not on others; other messages as notices', async () => {
    const text = (id: string, pool: string) =>
      `CRITICAL risk: health factor 1.0100\n\nWallet: ${shortAddress(endangered.address)}\nPool: ${shortAddress(pool)}\n\nAlert ${id} · evaluated now`;
    expect((await telegram(text('a-1', scenario.pool))).status).toBe(200);
    expect((await telegram(text('a-1', scenario.pool))).status).toBe(200); // the same alert on a second channel
    expect((await telegram(text('a-2', scenario.swapReceiver))).status).toBe(200); // another pool
    const alerts = mine().markers.filter((m) => m.kind === 'alert');
    expect(mine().markers).toHaveLength(1);
    expect(alerts).toEqual([
      expect.objectContaining({ title: 'CRITICAL risk: health factor 1.0100', ledger: sandbox.ledger.latest.sequence }),
    ]);
    expect(alerts[0].healthFactor).toBeCloseTo(mine().points.at(-1)?.healthFactor ?? 0, 6);
    // Any other message naming the wallet (an agent's event) is a notice, not an alert.
    const event = `Your risk agent sent a close\n\nWallet: ${shortAddress(endangered.address)}\n\nAgent event e-1 · now`;
    expect((await telegram(event)).status).toBe(200);
    expect(mine().markers.at(-1)).toMatchObject({ kind: 'notice', title: 'Your risk agent sent a close' });
    const healthy = series(history.view(), scenario.wallets.find((w) => w.key === 'healthy')?.address ?? '');
    expect(healthy?.markers).toEqual([]);
  });

  it("marks a close at the ledger of the wallet's own repay, with its transaction", async () => {
    const server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
    const wallet = LedgerWallet.fromMnemonic(endangered.mnemonic);
    const user = nativeToScVal(endangered.address, { type: 'address' });
    const repay = xdr.ScVal.scvVec([
      encodeRequest({ requestType: REQUEST_TYPES.Repay, address: scenario.usdc, amount: 100n * UNIT }),
    ]);
    const tx = await server.prepareTransaction(
      new TransactionBuilder(await server.getAccount(endangered.address), {
        fee: '100',
        networkPassphrase: Networks.TESTNET,
      })
        .addOperation(new Contract(scenario.pool).call('submit', user, user, user, repay))
        .setTimeout(300)
        .build(),
    );
    wallet.signTransaction(tx);
    const sent = await server.sendTransaction(tx);
    const before = mine().points.at(-1)?.healthFactor ?? 0;
    const ledger = sandbox.ledger.closeLedger();
    expect((await server.getTransaction(sent.hash)).status).toBe('SUCCESS');

    const close = mine().markers.find((m) => m.kind === 'close');
    expect(close).toMatchObject({ ledger: ledger.sequence, txHash: sent.hash, healthFactor: before });
    expect(close?.title).toMatch(/debt reduced/);
    expect(mine().points.at(-1)?.healthFactor).toBeGreaterThan(before);
    // A price move in the next ledger is no close.
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 2_600_000n);
    sandbox.ledger.closeLedger();
    expect(mine().markers.filter((m) => m.kind === 'close')).toHaveLength(1);
  });

  it('follows at most `positions` positions and keeps the last `markers` markers of each', async () => {
    const small = new HealthHistory(sandbox.ledger, sandbox.control.directory, sandbox.channels.log, {
      points: 2,
      markers: 1,
      positions: 1,
      readIntervalMs: 0,
    });
    sandbox.ledger.closeLedger();
    const [only] = small.view().positions;
    expect(small.view().positions).toHaveLength(1); // the demo has two wallets with debt
    for (const id of ['m-1', 'm-2']) {
      const alert = `HIGH risk: health factor 1.2000 (${id})\n\nWallet: ${shortAddress(only.account)}\n\nAlert ${id} · now`;
      expect((await telegram(alert)).status).toBe(200);
    }
    expect(small.view().positions[0].markers).toEqual([expect.objectContaining({ key: 'Alert m-2' })]);
  });

  it('never breaks a ledger close: a reading that fails is reported in the view, and the next one clears it', () => {
    const pools = sandbox.control.directory.pools;
    // A pool the directory names but the ledger does not hold: reading it throws.
    pools.push({
      name: 'ghost',
      contractId: StrKey.encodeContract(randomBytes(32)),
      oracle: scenario.oracle,
      reserves: [scenario.xlm],
    });
    expect(() => sandbox.ledger.closeLedger()).not.toThrow();
    expect(history.view().readError).toEqual(expect.any(String));
    pools.pop();
    sandbox.ledger.closeLedger();
    expect(history.view().readError).toBeUndefined();
    expect(mine().points.at(-1)?.ledger).toBe(sandbox.ledger.latest.sequence);
  });

  it('forgets everything on a reset of the sandbox', async () => {
    await fetch(`${sandbox.url}/control/reset`, { method: 'POST', body: '{}' });
    const served = (await (await fetch(`${sandbox.url}/control/health-history`)).json()) as HealthHistoryView;
    // The reloaded scenario may be read again already (a reading is due after the last close), from scratch.
    expect(served.positions.flatMap((p) => p.markers)).toEqual([]);
    expect(served.positions.every((p) => p.points.length <= 1)).toBe(true);
  });
});
