import {
  LedgerWallet,
  REQUEST_TYPES,
  blendScVal,
  decodePositions,
  poolRequestsOf,
  readInvocation,
  signAhead,
} from '@rp/ledger';
import { loadConfig } from '@rp/platform-core';
import { DEMO_PRICES, DEMO_WALLETS, UNIT, hasAuction } from '@rp/sandbox';
import pino from 'pino';
import { type LedgerSandbox, startLedgerSandbox } from '../../test/service-processes.int-support';
import { AgentConfig } from '../config/agent.config';
import { LedgerService } from '../ledger/ledger-service';
import { LedgerView } from '../ledger/ledger-view';
import { AgentMetrics } from '../metrics/agent-metrics';
import { ServiceClient } from '../service/service-client';
import { CloseRefusedError } from './built-close';
import { CloseBuilder } from './close-builder';
import { CloseSender } from './close-sender';
import { RescueTarget } from './rescue-target';
import { SigningGuard } from './signing-guard';
import { SigningRefusals } from './signing-refusals';

/**
 * The agent out of a liquidation auction on the sandbox ledger, in ledger (degraded) mode (issue 19 §5, ADR 027):
 * it sees the auction with its position, builds the rescue itself (just enough repaid, then request 9), the signing
 * rule passes it because the ledger shows the auction, and it lands: auction gone, collateral kept. A wallet that
 * cannot reach health is unwound instead, the unwind deleting the auction (the pool refuses any other submit).
 */
describe('the agent rescues its wallet from a liquidation auction (ledger mode)', () => {
  let ledger: LedgerSandbox;
  let wallets = 0;

  beforeAll(async () => {
    ledger = await startLedgerSandbox();
  }, 120_000);

  afterAll(async () => {
    // Other suites share nothing with this sandbox, but leave the demo price as it was for good measure.
    ledger?.sandbox.control.setup.setPrice(ledger.scenario.oracle, ledger.scenario.xlm, DEMO_PRICES.xlm);
    await ledger?.close();
  });

  /** A wallet with 10,000 XLM of collateral and 1,900 USDC of debt (health factor 1.125 at 0.30), holding `keepUsdc`. */
  function agentFor(keepUsdc: bigint, env: Record<string, string> = {}) {
    wallets += 1;
    ledger.sandbox.control.setup.setPrice(ledger.scenario.oracle, ledger.scenario.xlm, DEMO_PRICES.xlm);
    const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, {
      index: 4000 + wallets + Math.floor(Math.random() * 10_000),
    });
    const { setup } = ledger.sandbox.control;
    setup.fund(wallet.address, 100n * UNIT, `rescue wallet ${wallets}`);
    setup.openPosition(ledger.scenario.pool, {
      user: wallet.address,
      supplyCollateral: [{ asset: ledger.scenario.xlm, amount: 10_000n * UNIT }],
      borrow: [{ asset: ledger.scenario.usdc, amount: 1_900n * UNIT }],
    });
    const held = setup.balance(ledger.scenario.usdc, wallet.address);
    if (held > keepUsdc)
      setup.transfer(ledger.scenario.usdc, wallet.address, ledger.scenario.paymentReceiver, held - keepUsdc);
    const config = loadConfig(AgentConfig, {
      LEDGER_MNEMONIC: DEMO_WALLETS.healthy.mnemonic,
      CONTRACT_RPC_URL: ledger.sandbox.rpcUrl,
      UNWIND_RECEIVER: ledger.scenario.swapReceiver,
      WATCHED_POOLS: ledger.scenario.pool,
      ...env,
    });
    const logger = pino({ level: 'silent' });
    const view = new LedgerView(config.CONTRACT_RPC_URL, wallet.address, config.UNWIND_RECEIVER);
    const target = new RescueTarget();
    const builder = new CloseBuilder(config, view, target);
    const service = new LedgerService(config.WATCHED_POOLS, view, builder, config.MAX_CLOSE_FEE_STROOPS, logger);
    const refusals = new SigningRefusals(logger, new AgentMetrics());
    const guard = new SigningGuard(config, wallet.address, view, refusals, target);
    const sender = new CloseSender(view, new ServiceClient('http://127.0.0.1:9'), 250);
    return { wallet, view, service, guard, sender, refusals };
  }

  /** The sandbox's liquidator starts an auction against `user` (a real transaction) and it is on the ledger. */
  async function auctionAgainst(user: string): Promise<void> {
    ledger.sandbox.control.liquidator.startAuction(ledger.scenario.pool, user);
    await until(() => hasAuction(ledger.sandbox, ledger.scenario.pool, user));
  }

  const positions = (wallet: string) =>
    decodePositions(ledger.sandbox.ledger.view(ledger.scenario.pool, 'get_positions', [blendScVal.scAddress(wallet)]));

  async function signAndLand(agent: ReturnType<typeof agentFor>, unsignedXdr: string) {
    const checked = await agent.guard.check(ledger.scenario.pool, { unsignedXdr, route: 'submit', builtBy: 'ledger' });
    expect(checked).toMatchObject({ ok: true });
    const signed = signAhead(agent.wallet, unsignedXdr, await ledger.rpc.networkPassphrase());
    expect(await agent.sender.send(signed, undefined)).toMatchObject({ accepted: true });
    return agent.sender.follow(signed.hash, signed.validUntil, () => false);
  }

  it('sees the auction with its position, builds the rescue, and the rescue lands: auction gone, collateral kept', async () => {
    const repays = agentFor(1_900n * UNIT);
    const penniless = agentFor(0n);
    // XLM 0.30 -> 0.26: both under 1.0, and a liquidator starts an auction against each.
    ledger.sandbox.control.setup.setPrice(ledger.scenario.oracle, ledger.scenario.xlm, (DEMO_PRICES.xlm * 26n) / 30n);
    for (const agent of [repays, penniless]) await auctionAgainst(agent.wallet.address);

    const reading = await repays.service.read();
    expect(reading.positions).toEqual([expect.objectContaining({ poolAddress: ledger.scenario.pool, auction: true })]);

    const collateral = positions(repays.wallet.address).collateral.get(1);
    const built = await repays.service.build(ledger.scenario.pool, { rescue: true });
    const invocation = readInvocation(built.unsignedXdr, await ledger.rpc.networkPassphrase());
    const requests = poolRequestsOf(invocation!).requests;
    expect(requests.map((r) => [r.requestType, r.address])).toEqual([
      [REQUEST_TYPES.Repay, ledger.scenario.usdc],
      [REQUEST_TYPES.DeleteLiquidationAuction, repays.wallet.address],
    ]);
    expect(requests[0].amount).toBeLessThan(300n * UNIT);
    const final = await signAndLand(repays, built.unsignedXdr);
    expect(final.state).toBe('confirmed');
    expect(hasAuction(ledger.sandbox, ledger.scenario.pool, repays.wallet.address)).toBe(false);
    expect(positions(repays.wallet.address).collateral.get(1)).toBe(collateral);
    const after = await repays.service.read();
    expect(after.positions[0].auction).toBeUndefined();
    expect(after.positions[0].healthFactor).toBeGreaterThanOrEqual(1.1);

    // Holding nothing, the rescue is not possible; the agent's close (an unwind selling collateral through the
    // flash loan) carries request 9, passes the rule because the ledger shows the auction, and lands.
    await expect(penniless.service.build(ledger.scenario.pool, { rescue: true })).rejects.toMatchObject({
      code: 'RESCUE_NOT_POSSIBLE',
    } satisfies Partial<CloseRefusedError>);
    let close = await penniless.service.build(ledger.scenario.pool);
    if (close.route === 'approve') {
      expect((await signAndLand(penniless, close.unsignedXdr)).state).toBe('confirmed');
      close = await penniless.service.build(ledger.scenario.pool);
    }
    const closeRequests = poolRequestsOf(
      readInvocation(close.unsignedXdr, await ledger.rpc.networkPassphrase())!,
    ).requests;
    expect(closeRequests.at(-1)).toEqual({
      requestType: REQUEST_TYPES.DeleteLiquidationAuction,
      address: penniless.wallet.address,
      amount: 0n,
    });
    expect((await signAndLand(penniless, close.unsignedXdr)).state).toBe('confirmed');
    expect(hasAuction(ledger.sandbox, ledger.scenario.pool, penniless.wallet.address)).toBe(false);
    expect(positions(penniless.wallet.address).liabilities.size).toBe(0);
    expect([...repays.refusals.view(), ...penniless.refusals.view()]).toEqual([]);
  }, 120_000);

  it("deleverage closes the whole position when a partial close would leave debt under the pool's minimum", async () => {
    const agent = agentFor(0n, { CLOSE_STRATEGY: 'deleverage', TARGET_HEALTH_FACTOR: '1.5' });
    const setMinimum = (value: bigint) => ledger.sandbox.control.setup.setMinCollateral(ledger.scenario.pool, value);
    // At 1.5 about $1,570 of effective collateral would be left (of $2,250) with debt; the pool asks $2,000.
    setMinimum(2_000n * UNIT);
    try {
      let close = await agent.service.build(ledger.scenario.pool);
      if (close.route === 'approve') {
        expect((await signAndLand(agent, close.unsignedXdr)).state).toBe('confirmed');
        close = await agent.service.build(ledger.scenario.pool);
      }
      const requests = poolRequestsOf(
        readInvocation(close.unsignedXdr, await ledger.rpc.networkPassphrase())!,
      ).requests;
      // The whole collateral withdrawn: a full unwind, not the partial one the pool would refuse.
      expect(requests).toContainEqual(
        expect.objectContaining({ requestType: REQUEST_TYPES.WithdrawCollateral, address: ledger.scenario.xlm }),
      );
      expect((await signAndLand(agent, close.unsignedXdr)).state).toBe('confirmed');
      expect(positions(agent.wallet.address).liabilities.size).toBe(0);
      expect(positions(agent.wallet.address).collateral.size).toBe(0);
    } finally {
      setMinimum(0n);
    }
  }, 120_000);

  it('refuses the same rescue once no auction runs against the wallet (request 9 only while the ledger shows one)', async () => {
    const agent = agentFor(1_900n * UNIT);
    ledger.sandbox.control.setup.setPrice(ledger.scenario.oracle, ledger.scenario.xlm, (DEMO_PRICES.xlm * 26n) / 30n);
    await auctionAgainst(agent.wallet.address);
    const built = await agent.service.build(ledger.scenario.pool, { rescue: true });
    // A liquidator fills the whole auction first: no auction is left, and the rescue is no longer signed.
    ledger.sandbox.control.liquidator.fill(ledger.scenario.pool, agent.wallet.address, 100);
    await until(() => !hasAuction(ledger.sandbox, ledger.scenario.pool, agent.wallet.address));
    expect(await agent.guard.check(ledger.scenario.pool, built)).toMatchObject({
      ok: false,
      reason: 'wrong_request_type',
    });
    expect(agent.refusals.view()).toEqual([
      expect.objectContaining({ source: 'ledger', reason: 'wrong_request_type' }),
    ]);
  }, 120_000);
});

/** Waits (the ledger closes every 250 ms) until `check` holds; a safety bound of 30 s, not a timing assertion. */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the ledger never showed it');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
