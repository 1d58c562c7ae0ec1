import { LedgerWallet } from '@rp/ledger';
import { loadConfig } from '@rp/platform-core';
import { DEMO_WALLETS, UNIT } from '@rp/sandbox';
import pino from 'pino';
import { type LedgerSandbox, startLedgerSandbox } from '../../test/service-processes.int-support';
import { AgentConfig } from '../config/agent.config';
import { LedgerView } from '../ledger/ledger-view';
import { AgentMetrics } from '../metrics/agent-metrics';
import { SigningGuard } from './signing-guard';
import { SigningRefusals } from './signing-refusals';

/**
 * The signing guard on the sandbox ledger: the agent's own (degraded) build of a real position passes the rule when
 * the pool is trusted, by `WATCHED_POOLS` or by the pool factory's `is_pool`; with neither, the same honest build is
 * refused `unknown_pool`: a pool the service merely named is not trusted in degraded mode either.
 */
describe('the signing guard on the ledger', () => {
  let ledger: LedgerSandbox;
  let wallets = 0;

  beforeAll(async () => {
    ledger = await startLedgerSandbox();
  }, 120_000);

  afterAll(() => ledger?.close());

  async function guardFor(env: Record<string, string>) {
    wallets += 1;
    const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 3000 + wallets + Math.floor(Math.random() * 10_000) });
    const { setup } = ledger.sandbox.control;
    setup.fund(wallet.address, 100n * UNIT, `guard wallet ${wallets}`);
    setup.openPosition(ledger.scenario.pool, {
      user: wallet.address,
      supplyCollateral: [{ asset: ledger.scenario.xlm, amount: 10_000n * UNIT }],
      borrow: [{ asset: ledger.scenario.usdc, amount: 1_000n * UNIT }],
    });
    const config = loadConfig(AgentConfig, {
      LEDGER_MNEMONIC: DEMO_WALLETS.healthy.mnemonic,
      CONTRACT_RPC_URL: ledger.sandbox.rpcUrl,
      UNWIND_RECEIVER: ledger.scenario.swapReceiver,
      ...env,
    });
    const view = new LedgerView(config.CONTRACT_RPC_URL, wallet.address, config.UNWIND_RECEIVER);
    const metrics = new AgentMetrics();
    const refusals = new SigningRefusals(pino({ level: 'silent' }), metrics);
    const guard = new SigningGuard(config, wallet.address, view, refusals);
    const built = await view.buildClose(ledger.scenario.pool, 'unwind', 1.5, config.SLIPPAGE);
    return { guard, built, refusals, metrics };
  }

  it('passes the agent own close of a pool the factory knows, with no WATCHED_POOLS', async () => {
    const { guard, built, refusals } = await guardFor({ BLEND_POOL_FACTORY: ledger.scenario.poolFactory });
    expect(built.builtBy).toBe('ledger');
    expect(await guard.check(ledger.scenario.pool, built)).toMatchObject({ ok: true });
    expect(refusals.view()).toEqual([]);
  });

  it('passes it for a pool listed in WATCHED_POOLS whatever the factory says', async () => {
    const { guard, built } = await guardFor({ WATCHED_POOLS: ledger.scenario.pool, BLEND_POOL_FACTORY: ledger.scenario.usdc });
    expect(await guard.check(ledger.scenario.pool, built)).toMatchObject({ ok: true });
  });

  it('refuses it for a pool neither listed nor known to the factory, recording the refusal', async () => {
    const { guard, built, refusals, metrics } = await guardFor({ BLEND_POOL_FACTORY: ledger.scenario.usdc });
    expect(await guard.check(ledger.scenario.pool, built)).toMatchObject({ ok: false, reason: 'unknown_pool' });
    expect(refusals.view()).toEqual([expect.objectContaining({ source: 'ledger', reason: 'unknown_pool' })]);
    expect(metrics.render()).toContain('agent_refused_transactions_total{reason="unknown_pool"} 1\n');
  });
});
