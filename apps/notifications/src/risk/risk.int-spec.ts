/**
 * `GET /api/v1/rms/risk/:walletAddress` in-process against the sandbox: positions in every watched pool valued as
 * the pool values them (the sandbox page's health factor), levels as prices move, no debt, no position, bad input
 * and a ledger that does not answer.
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { CallerIdentity, RiskResponse } from '@rp/contracts';
import { LedgerWallet, fixedToNumber } from '@rp/ledger';
import { PersistenceModule } from '@rp/persistence';
import { createApp, initApp, loadConfig, signInternalRequest } from '@rp/platform';
import { DEMO_PRICES, DEMO_WALLETS, type LoadedScenario, type RunningSandbox, UNIT, startSandbox } from '@rp/sandbox';
import request from 'supertest';
import { NotificationsSettings } from '../settings/notifications-settings';
import { notificationsApp } from '../notifications.app';
import { RiskConfigRoutesModule } from '../risk-config/risk-config.module';
import { RiskRoutesModule } from './risk.module';

const TOKEN = 'internal-token-for-risk-integration-tests';
const keyId = randomUUID();
const caller: CallerIdentity = {
  keyId,
  tier: 'partner',
  rateLimit: 1000,
  burst: 1000,
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  email: null,
  account: `partner:key-${keyId}`,
};

async function riskApp(env: Record<string, string>): Promise<NestFastifyApplication> {
  const config = loadConfig(NotificationsSettings, {
    INTERNAL_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    DATABASE_URL: 'sqlite://memory',
    ...env,
  });
  const app = await createApp(
    // The risk routes and the risk configurations alone: no Redis, so no queue dashboard either.
    {
      ...notificationsApp,
      modules: () => [
        PersistenceModule.forRoot({ appName: 'notifications', url: config.databaseUrl() }),
        { module: RiskRoutesModule },
        { module: RiskConfigRoutesModule },
      ],
      readiness: () => [],
      configureHttp: undefined,
    },
    config,
  );
  return initApp(app);
}

function put(app: NestFastifyApplication, path: string, body: unknown) {
  const requestId = randomUUID();
  const text = JSON.stringify(body);
  const headers = signInternalRequest({ token: TOKEN, method: 'PUT', path, requestId, identity: caller, body: text });
  return request(app.getHttpServer())
    .put(path)
    .set({ ...headers, 'x-request-id': requestId, 'content-type': 'application/json' })
    .send(text);
}

function get(app: NestFastifyApplication, path: string) {
  const requestId = randomUUID();
  const headers = signInternalRequest({ token: TOKEN, method: 'GET', path, requestId, identity: caller });
  return request(app.getHttpServer())
    .get(path)
    .set({ ...headers, 'x-request-id': requestId });
}

describe('GET /api/v1/rms/risk/:walletAddress', () => {
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let app: NestFastifyApplication;
  let secondPool: string;
  const endangered = LedgerWallet.fromMnemonic(DEMO_WALLETS.endangered.mnemonic).address;
  const risk = (wallet: string) => get(app, `/api/v1/rms/risk/${wallet}`);
  const pageHealthFactor = (pool: string, wallet: string) =>
    sandbox.control.dump().positions.find((p) => p.pool === pool && p.account === wallet)?.healthFactor;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    scenario = sandbox.scenario as LoadedScenario;
    const setup = sandbox.control.setup;
    // A second watched pool (USDC only) where the endangered wallet has plain collateral and no debt.
    secondPool = setup.deployPool('Second pool', scenario.oracle);
    setup.addReserve(secondPool, scenario.usdc, { cFactor: 9_000_000, lFactor: 9_000_000 });
    setup.openPosition(secondPool, {
      user: endangered,
      supplyCollateral: [{ asset: scenario.usdc, amount: 50n * UNIT }],
    });
    app = await riskApp({ CONTRACT_RPC_URL: sandbox.rpcUrl, RMS_POOLS: `${scenario.pool},${secondPool}` });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
  });

  afterEach(() => {
    sandbox.faults.clear();
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_PRICES.xlm);
    sandbox.control.setup.setPoolStatus(scenario.pool, 0);
    sandbox.control.setup.setPrice(scenario.oracle, scenario.usdc, DEMO_PRICES.usdc);
  });

  it("answers one entry per watched pool with the sandbox page's health factor", async () => {
    // The reserves accrue by the second, and the answer reuses a pool snapshot for a moment: both sides agree when
    // read in the same second from the same snapshot. On a loaded machine tries can straddle a second (seen:
    // 1.1249999 against 1.125 fifty times in a row, quick tries all inside one stale moment), so try for up to 20 s,
    // 100 ms apart; a safety bound, not a timing assertion.
    let answer: request.Response | undefined;
    let page: string | null | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      answer = await risk(endangered);
      page = pageHealthFactor(scenario.pool, endangered);
      if (answer.body.positions?.[0]?.healthFactor === fixedToNumber(BigInt(page ?? 0), 7)) break;
    }
    expect(answer?.status).toBe(200);
    const body = answer?.body as RiskResponse;
    expect(body).toMatchObject({ success: true, walletAddress: endangered });
    expect(body.positions).toHaveLength(2);
    const [blend, second] = body.positions;
    expect(blend).toMatchObject({
      address: endangered,
      poolAddress: scenario.pool,
      riskLevel: 'high',
      triggers: ['low_health_factor'],
      recommendedAction: 'REPAY',
      collateralValueUsd: 3000,
      evaluatedAt: body.evaluatedAt,
    });
    expect(blend.healthFactor).toBe(fixedToNumber(BigInt(page as string), 7));
    expect(blend.liabilityValueUsd).toBeGreaterThanOrEqual(1900);
    expect(second).toEqual({
      address: endangered,
      poolAddress: secondPool,
      riskLevel: 'low',
      healthFactor: null,
      triggers: [],
      collateralValueUsd: 50,
      liabilityValueUsd: 0,
      recommendedAction: 'HOLD',
      evaluatedAt: body.evaluatedAt,
      liquidationPrices: { [scenario.usdc]: null },
      healthFactorIf: { '-5': null, '-10': null, '-20': null, '-30': null },
      liquidationBuffer: null,
    });
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(Date.parse(body.evaluatedAt));
  }, 30_000);

  it('says where the position is liquidated, and the oracle at that price agrees', async () => {
    const before = (await risk(endangered)).body as RiskResponse;
    const [blend] = before.positions;
    // 10 000 XLM collateral at $0.30 (c 0.75) against ~1 900 USDC (l 0.95): HF ~1.125, liquidated near $0.2667.
    expect(Object.keys(blend.liquidationPrices)).toEqual([scenario.xlm]);
    const liquidationPrice = blend.liquidationPrices[scenario.xlm] as string;
    expect(liquidationPrice).toMatch(/^0\.[0-9]{7}$/);
    expect(Number(liquidationPrice)).toBeCloseTo(0.2667, 3);
    // XLM is the only collateral: the uniform drop is XLM's own drop to its liquidation price (to 0.001 %).
    expect(blend.liquidationBuffer).toBeCloseTo((1 - Number(liquidationPrice) / 0.3) * 100, 3);
    const hfIf = blend.healthFactorIf;
    expect([hfIf['-5'], hfIf['-10'], hfIf['-20'], hfIf['-30']]).toEqual(
      [0.95, 0.9, 0.8, 0.7].map((kept) => expect.closeTo((blend.healthFactor as number) * kept, 5)),
    );

    // XLM 10 % down is what healthFactorIf["-10"] said (the debt accrues meanwhile: to 6 decimals).
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 2_700_000n);
    sandbox.ledger.closeLedger();
    const down = (await risk(endangered)).body as RiskResponse;
    expect(down.positions[0].healthFactor).toBeCloseTo(hfIf['-10'] as number, 6);

    // At the liquidation price the pool's health factor is at most 1.0, and just above it.
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, BigInt(liquidationPrice.replace('.', '')));
    sandbox.ledger.closeLedger();
    const at = (await risk(endangered)).body as RiskResponse;
    expect(at.positions[0].healthFactor).toBeLessThanOrEqual(1);
    expect(at.positions[0].healthFactor).toBeGreaterThan(0.99999);
    expect(at.positions[0].liquidationBuffer).toBe(0);
  });

  it('follows the oracle: XLM at $0.28 makes the position critical', async () => {
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 2_800_000n);
    sandbox.ledger.closeLedger();
    const answer = await risk(endangered);
    expect(answer.status).toBe(200);
    expect(answer.body.positions[0]).toMatchObject({
      riskLevel: 'critical',
      recommendedAction: 'LIQUIDATE',
      collateralValueUsd: 2800,
    });
    expect(answer.body.positions[0].healthFactor).toBeLessThan(1.1);
  });

  it.each([
    [3, 'pool_on_ice', 'medium', 'WATCH'],
    [5, 'pool_frozen', 'high', 'REPAY'],
  ] as const)(
    'a pool at status %s raises %s: a healthy position is %s (%s)',
    async (status, trigger, level, action) => {
      // XLM at $0.50: HF 1.875, healthy on its own (clear of 1.5, which accrued interest would cross).
      sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 5_000_000n);
      sandbox.control.setup.setPoolStatus(scenario.pool, status);
      sandbox.ledger.closeLedger();
      const answer = await risk(endangered);
      expect(answer.status).toBe(200);
      expect(answer.body.positions[0]).toMatchObject({
        riskLevel: level,
        recommendedAction: action,
        triggers: [trigger],
      });
    },
  );

  it("judges the level by the account's bounds for the wallet, and says which bounds it used", async () => {
    sandbox.ledger.closeLedger(); // the price the test before moved is back
    const before = (await risk(endangered)).body as RiskResponse;
    expect(before.levels).toEqual({ medium: 1.5, high: 1.25, critical: 1.1 });
    expect(before.positions[0]).toMatchObject({ riskLevel: 'high', recommendedAction: 'REPAY' });
    // HF ~1.125: critical once the account says critical starts below 1.2.
    const set = await put(app, `/api/v1/rms/config/${endangered}`, { levels: { critical: 1.2 } });
    expect(set.status).toBe(200);
    const after = (await risk(endangered)).body as RiskResponse;
    expect(after.levels).toEqual({ medium: 1.5, high: 1.25, critical: 1.2 });
    expect(after.positions[0]).toMatchObject({ riskLevel: 'critical', recommendedAction: 'LIQUIDATE' });
    expect(after.positions[1]).toMatchObject({ riskLevel: 'low', healthFactor: null });
    // Back to the defaults: high again.
    await put(app, `/api/v1/rms/config/${endangered}`, {});
    expect(((await risk(endangered)).body as RiskResponse).positions[0].riskLevel).toBe('high');
  });

  it("raises high_utilization for a borrowed reserve at or above the account's utilization bounds", async () => {
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 5_000_000n); // HF 1.875: healthy on its own
    sandbox.ledger.closeLedger();
    const healthy = (await risk(endangered)).body as RiskResponse;
    expect(healthy.positions[0]).toMatchObject({ riskLevel: 'low', triggers: [] });
    try {
      // The demo's USDC is lent out a little: above 1 bp (warn), below 10 000 (alert).
      await put(app, `/api/v1/rms/config/${endangered}`, { utilizationWarnBps: 1, utilizationAlertBps: 10_000 });
      const warned = (await risk(endangered)).body as RiskResponse;
      expect(warned.positions[0]).toMatchObject({ riskLevel: 'medium', triggers: ['high_utilization'] });
      await put(app, `/api/v1/rms/config/${endangered}`, { utilizationWarnBps: 1, utilizationAlertBps: 2 });
      const alerted = (await risk(endangered)).body as RiskResponse;
      expect(alerted.positions[0]).toMatchObject({ riskLevel: 'high', recommendedAction: 'REPAY' });
      // The second pool's position has no debt: nothing borrowed, no trigger.
      expect(alerted.positions[1]).toMatchObject({ riskLevel: 'low', triggers: [] });
    } finally {
      await put(app, `/api/v1/rms/config/${endangered}`, {});
    }
  });

  it('raises stablecoin_depeg when the oracle prices USDC off $1 by more than the bound (200 bps)', async () => {
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 5_000_000n); // healthy on its own
    sandbox.control.setup.setPrice(scenario.oracle, scenario.usdc, 9_800_000n); // -200 bps: at the bound
    sandbox.ledger.closeLedger();
    expect(((await risk(endangered)).body as RiskResponse).positions[0]).toMatchObject({ riskLevel: 'low' });
    sandbox.control.setup.setPrice(scenario.oracle, scenario.usdc, 9_700_000n); // -300 bps
    sandbox.ledger.closeLedger();
    const answer = (await risk(endangered)).body as RiskResponse;
    expect(answer.positions[0]).toMatchObject({ riskLevel: 'high', triggers: ['stablecoin_depeg'] });
    // The second pool's position holds USDC collateral only: a depeg there is news too.
    expect(answer.positions[1]).toMatchObject({ triggers: ['stablecoin_depeg'] });
  });

  it("raises stale_oracle when the oracle's XLM price is older than the wallet's oracleMaxAgeSeconds at the close", async () => {
    const feed = `${sandbox.url}/control/oracles/${scenario.oracle}/feed`;
    const control = (body: unknown) =>
      fetch(feed, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 5_000_000n); // healthy on its own
    sandbox.ledger.closeLedger();
    try {
      // The feed stopped 240 s before the last close: younger than 300 s at the next close, not stale yet. (Prices
      // are read once per ledger: a ledger closes after each change. Exactly at the bound: the unit specs.)
      expect((await control({ running: false, asset: scenario.xlm, ageSeconds: 240 })).status).toBe(200);
      sandbox.ledger.closeLedger();
      expect(((await risk(endangered)).body as RiskResponse).positions[0]).toMatchObject({ triggers: [] });
      await control({ running: false, asset: scenario.xlm, ageSeconds: 600 });
      sandbox.ledger.closeLedger();
      const stale = (await risk(endangered)).body as RiskResponse;
      expect(stale.positions[0]).toMatchObject({
        riskLevel: 'high',
        recommendedAction: 'REPAY',
        triggers: ['stale_oracle'],
      });
      // The second pool's position holds USDC only, whose feed runs.
      expect(stale.positions[1]).toMatchObject({ triggers: [] });
      // The account allows prices a day old: not stale.
      await put(app, `/api/v1/rms/config/${endangered}`, { oracleMaxAgeSeconds: 86_400 });
      expect(((await risk(endangered)).body as RiskResponse).positions[0]).toMatchObject({
        riskLevel: 'low',
        triggers: [],
      });
    } finally {
      await put(app, `/api/v1/rms/config/${endangered}`, {});
      await control({ running: true });
    }
  });

  it('answers no positions for a wallet that has none', async () => {
    const stranger = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 4242 }).address;
    const answer = await risk(stranger);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, walletAddress: stranger, positions: [] });
  });

  it.each(['GABC', 'not-an-address', scenarioPoolPlaceholder()])('refuses %s with a field-level 400', async (bad) => {
    const answer = await risk(bad === '<pool>' ? scenario.pool : bad);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, status: 400, code: 'VALIDATION_FAILED' });
    expect(answer.body.details).toEqual([expect.objectContaining({ field: 'walletAddress' })]);
  });

  it('answers 502 LEDGER_UNAVAILABLE when the ledger RPC fails', async () => {
    sandbox.faults.add({ kind: 'rpc-error', method: 'getLedgerEntries', count: Number.POSITIVE_INFINITY });
    const answer = await risk(endangered);
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({ success: false, code: 'LEDGER_UNAVAILABLE' });
  });

  it('answers 503 NOT_CONFIGURED without RMS_POOLS', async () => {
    const bare = await riskApp({ CONTRACT_RPC_URL: sandbox.rpcUrl });
    try {
      const answer = await get(bare, `/api/v1/rms/risk/${endangered}`);
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ success: false, code: 'NOT_CONFIGURED' });
    } finally {
      await bare.close();
    }
  });
});

/** A contract address is not a wallet: stands for the scenario's pool, known only once the sandbox runs. */
function scenarioPoolPlaceholder(): string {
  return '<pool>';
}
