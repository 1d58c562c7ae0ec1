import { decodePositions } from '@rp/ledger';
import { address } from '../contracts/scval';
import { startSandbox, type RunningSandbox } from '../index';
import type { LoadedScenario } from '../scenario';

/**
 * Liquidation auctions through the control API over real HTTP: the sandbox's liquidator starts one against a demo
 * wallet pushed under 1.0 and fills it, each a real signed transaction that lands in the next ledger.
 */
describe('sandbox control API: liquidation auctions', () => {
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let wallet: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    scenario = sandbox.scenario!;
    wallet = scenario.wallets.find((w) => w.key === 'endangered')!.address;
  });

  afterAll(() => sandbox.close());

  async function send(method: string, path: string, body?: unknown) {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }
  const positions = (who: string) =>
    decodePositions(sandbox.ledger.view(scenario.pool, 'get_positions', [address(who)]));

  it('refuses bad input and a healthy wallet with a 400 naming why', async () => {
    const path = `/control/pools/${scenario.pool}/auctions`;
    expect((await send('POST', path, { user: 'nope' })).status).toBe(400);
    expect((await send('POST', path, { user: wallet, percent: 0 })).status).toBe(400);
    expect((await send('POST', `/control/pools/${scenario.xlm}/auctions`, { user: wallet })).status).toBe(400);
    const healthy = await send('POST', path, { user: wallet });
    expect(healthy.status).toBe(400);
    expect(String(healthy.json['error'])).toMatch(/#1211.*InvalidLiquidation/);
  });

  it('starts an auction below 1.0 with a transaction of its liquidator, then fills it by request 6', async () => {
    // XLM $0.30 -> $0.25: 10 000 XLM x 0.75 = 1875 against 1900 / 0.95 = 2000, health factor 0.94.
    await send('POST', `/control/oracles/${scenario.oracle}/prices`, { asset: scenario.xlm, price: '2500000' });
    const started = await send('POST', `/control/pools/${scenario.pool}/auctions`, { user: wallet });
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({ status: 'PENDING', pool: scenario.pool, user: wallet });
    const percent = started.json['percent'] as number;
    expect(percent).toBeGreaterThan(0);
    // Nothing is stored until the ledger closes: it is a transaction like anyone's.
    expect((await send('GET', `/control/pools/${scenario.pool}/auctions/${wallet}`)).json['auction']).toBeNull();
    const closed = (await send('POST', '/control/ledger/close', {})).json as { sequence: number };
    expect(sandbox.ledger.transaction(String(started.json['hash']))?.status).toBe('SUCCESS');
    const { auction } = (await send('GET', `/control/pools/${scenario.pool}/auctions/${wallet}`)).json as {
      auction: { block: number; bid: Record<string, string>; lot: Record<string, string>; lotPercent: number };
    };
    expect(auction).toMatchObject((started.json['auction'] as object) ?? {});
    expect(auction.block).toBe(closed.sequence + 1);
    expect(Object.keys(auction.bid)).toEqual([scenario.usdc]);
    expect(Object.keys(auction.lot)).toEqual([scenario.xlm]);
    expect((await send('GET', '/control/auctions')).json).toEqual([expect.objectContaining({ user: wallet })]);

    await send('POST', '/control/ledger/close', { count: 100 });
    const before = positions(wallet);
    const fill = await send('POST', `/control/pools/${scenario.pool}/auctions/${wallet}/fill`, { percent: 100 });
    expect(fill.status).toBe(200);
    await send('POST', '/control/ledger/close', {});
    expect(sandbox.ledger.transaction(String(fill.json['hash']))?.status).toBe('SUCCESS');
    expect((await send('GET', `/control/pools/${scenario.pool}/auctions/${wallet}`)).json['auction']).toBeNull();
    const liquidator = String(fill.json['liquidator']);
    const after = positions(wallet);
    const taken = positions(liquidator);
    expect(after.liabilities.get(0) ?? 0n).toBe(before.liabilities.get(0)! - BigInt(auction.bid[scenario.usdc]));
    expect(taken.liabilities.get(0)).toBe(BigInt(auction.bid[scenario.usdc]));
    expect(after.collateral.get(1)! < before.collateral.get(1)!).toBe(true);
  });

  it('puts a "Start auction" button and the live auctions on the page', async () => {
    const page = await (await fetch(`${sandbox.url}/`)).text();
    expect(page).toContain('<h2>Liquidation auctions</h2>');
    expect(page).toContain('<button id="auction-start" type="button">Start auction</button>');
    expect(page).toContain("fetch('/control/auctions')");
  });
});
