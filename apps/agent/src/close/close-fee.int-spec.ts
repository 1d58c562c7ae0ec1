import { LedgerWallet, MIN_INCLUSION_FEE, inclusionFeeOf, resourceFeeOf, signAhead } from '@rp/ledger';
import { loadConfig } from '@rp/platform-core';
import { DEMO_WALLETS, UNIT } from '@rp/sandbox';
import pino from 'pino';
import type { LedgerSandbox } from '../../test/service-processes.int-support';
import { startStormLedger, stopStormLedger, until } from '../../test/storm-ledger.int-support';
import { AgentConfig } from '../config/agent.config';
import { LedgerView } from '../ledger/ledger-view';
import { AgentMetrics } from '../metrics/agent-metrics';
import type { BuiltClose } from './built-close';
import { CloseBuilder } from './close-builder';
import { SigningGuard } from './signing-guard';
import { SigningRefusals } from './signing-refusals';

/**
 * Closes priced from getFeeStats on the sandbox ledger during a storm (issue 18 §2): the agent's own build of a real
 * position, priced by CloseBuilder from the fees the storm drives up, passes the signing rule and is included within
 * 2 ledgers of its send; the same close at the minimum fee (what the agent offered before) is still waiting after 2.
 */
describe('closes priced from getFeeStats under a storm', () => {
  let ledger: LedgerSandbox;
  let wallets = 0;

  beforeAll(async () => {
    ledger = await startStormLedger();
  }, 180_000);

  afterAll(async () => {
    await stopStormLedger(ledger);
  });

  /** A wallet with a real position, and the agent's ledger view of it. */
  function walletWithPosition() {
    wallets += 1;
    const index = 5000 + wallets + Math.floor(Math.random() * 10_000);
    const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index });
    const { setup } = ledger.sandbox.control;
    setup.fund(wallet.address, 100n * UNIT, `fee wallet ${wallets}`);
    setup.openPosition(ledger.scenario.pool, {
      user: wallet.address,
      supplyCollateral: [{ asset: ledger.scenario.xlm, amount: 10_000n * UNIT }],
      borrow: [{ asset: ledger.scenario.usdc, amount: 1_000n * UNIT }],
    });
    const view = new LedgerView(ledger.sandbox.rpcUrl, wallet.address, ledger.scenario.swapReceiver);
    return { wallet, view };
  }

  /** The agent's close builder and signing guard for the wallet, with its settings. */
  function agentFor(wallet: LedgerWallet, view: LedgerView, env: Record<string, string> = {}) {
    const config = loadConfig(AgentConfig, {
      LEDGER_MNEMONIC: DEMO_WALLETS.healthy.mnemonic,
      CONTRACT_RPC_URL: ledger.sandbox.rpcUrl,
      UNWIND_RECEIVER: ledger.scenario.swapReceiver,
      WATCHED_POOLS: ledger.scenario.pool,
      ...env,
    });
    // Built here from the ledger: neither the service nor the subscription is asked.
    const builder = new CloseBuilder(config, view);
    const refusals = new SigningRefusals(pino({ level: 'silent' }), new AgentMetrics());
    return { builder, guard: new SigningGuard(config, wallet.address, view, refusals) };
  }

  /** Signs and sends the close; the ledger it was sent at. */
  async function send(wallet: LedgerWallet, built: BuiltClose) {
    const signed = signAhead(wallet, built.unsignedXdr, await ledger.rpc.networkPassphrase());
    const sentAt = (await ledger.rpc.getLatestLedger()).sequence;
    const answer = await ledger.rpc.sendEnvelope(signed.envelope);
    expect(answer.status).toBe('PENDING');
    return { hash: signed.hash, sentAt };
  }

  it('prices the close above the storm, within the cap, and it is included within 2 ledgers', async () => {
    const { wallet, view } = walletWithPosition();
    const { builder, guard } = agentFor(wallet, view);
    const built = await builder.build(ledger.scenario.pool);
    // p95 of the charged fees is the storm's bid (1000): the close bids 25% more.
    expect(inclusionFeeOf(built.unsignedXdr)).toBe(1250n);
    expect(await guard.check(ledger.scenario.pool, built)).toMatchObject({ ok: true });
    const { hash, sentAt } = await send(wallet, built);
    let included: number | undefined;
    await until(async () => {
      const answer = await ledger.rpc.getTransaction(hash);
      if (answer.status !== 'NOT_FOUND') included = answer.ledger;
      return included !== undefined || (await ledger.rpc.getLatestLedger()).sequence > sentAt + 3;
    });
    expect(included).toBeDefined();
    expect(included).toBeLessThanOrEqual(sentAt + 2);
  }, 120_000);

  it('the same close at the minimum fee is not included within 2 ledgers (the storm outbids it)', async () => {
    const { wallet, view } = walletWithPosition();
    const { builder, guard } = agentFor(wallet, view);
    const built = await view.buildClose(ledger.scenario.pool, 'unwind', 1.5, 50);
    expect(inclusionFeeOf(built.unsignedXdr)).toBe(MIN_INCLUSION_FEE);
    expect(await guard.check(ledger.scenario.pool, built)).toMatchObject({ ok: true });
    // What the closer checks before sending a presigned close: at the minimum it is built again, priced it is not.
    expect(builder.underpriced(built.unsignedXdr)).toBe(false); // nothing read yet: the minimum is all it knows
    const priced = await builder.priced(built);
    expect(builder.underpriced(built.unsignedXdr)).toBe(true);
    expect(builder.underpriced(priced.unsignedXdr)).toBe(false);
    const { hash, sentAt } = await send(wallet, built);
    await until(async () => (await ledger.rpc.getLatestLedger()).sequence >= sentAt + 3);
    expect((await ledger.rpc.getTransaction(hash)).status).toBe('NOT_FOUND');
  }, 120_000);

  it('keeps inclusion plus resources within MAX_CLOSE_FEE_STROOPS, which the signing rule accepts', async () => {
    const { wallet, view } = walletWithPosition();
    const unpriced = await view.buildClose(ledger.scenario.pool, 'unwind', 1.5, 50);
    const cap = resourceFeeOf(unpriced.unsignedXdr) + 600n; // room for 600 stroops of inclusion fee
    const { builder, guard } = agentFor(wallet, view, { MAX_CLOSE_FEE_STROOPS: String(cap) });
    const built = await builder.priced(unpriced);
    expect(inclusionFeeOf(built.unsignedXdr)).toBe(600n);
    expect(inclusionFeeOf(built.unsignedXdr) + resourceFeeOf(built.unsignedXdr)).toBe(cap);
    expect(await guard.check(ledger.scenario.pool, built)).toMatchObject({ ok: true });
  }, 120_000);
});
