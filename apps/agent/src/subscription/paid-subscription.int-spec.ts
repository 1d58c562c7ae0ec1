/**
 * The subscription keeper paying for real: a real database, the real subscription service (a process) and the
 * sandbox ledger. A settlement slower than the service waits, a restart in the middle of one, a gateway that refuses
 * every key, and a 402 outside the purchase limits: in each, what the ledger shows is what the agent paid.
 */
import { LedgerWallet } from '@rp/ledger';
import { loadConfig } from '@rp/platform-core';
import { DEMO_WALLETS } from '@rp/sandbox';
import pino from 'pino';
import {
  type LedgerSandbox,
  PRICE,
  type ServiceProcess,
  eventually,
  startLedgerSandbox,
  startSubscription,
} from '../../test/service-processes.int-support';
import { AgentConfig } from '../config/agent.config';
import { LedgerView } from '../ledger/ledger-view';
import { AgentMetrics } from '../metrics/agent-metrics';
import { OwnerOutbox } from '../owner/owner-outbox';
import { type AgentStore, openAgentStore } from '../store/agent-store';
import { SubscriptionKeeper } from './subscription-keeper';

const MNEMONIC = DEMO_WALLETS.healthy.mnemonic;
const MINUTE = 60_000;
let wallets = 0;

describe('the subscription keeper paying the real service', () => {
  let ledger: LedgerSandbox;
  let service: ServiceProcess;
  const stores: AgentStore[] = [];

  beforeAll(async () => {
    ledger = await startLedgerSandbox();
    // A settlement not final within 1.5 s is answered 202 `settling` (the ledger can be paused to make it so).
    service = await startSubscription(ledger, { SETTLEMENT_TIMEOUT_MS: '1500', SETTLEMENT_RECONCILE_INTERVAL_MS: '500' });
  }, 120_000);

  afterEach(async () => {
    ledger.resume();
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  afterAll(async () => {
    await service?.stop();
    await ledger?.close();
  });

  /** A fresh wallet holding `usdc`, its own database, and keepers for it (a new one is a restart). */
  async function agentFor(usdc: bigint, env: Record<string, string> = {}) {
    wallets += 1;
    const wallet = LedgerWallet.fromMnemonic(MNEMONIC, { index: 1200 + wallets + Math.floor(Math.random() * 10_000) });
    ledger.sandbox.control.setup.fund(wallet.address, 100_000_000n, `keeper wallet ${wallets}`);
    ledger.sandbox.control.setup.mint(ledger.scenario.usdc, wallet.address, usdc);
    const store = await openAgentStore('sqlite://memory');
    stores.push(store);
    const config = loadConfig(AgentConfig, {
      LEDGER_MNEMONIC: MNEMONIC,
      CONTRACT_RPC_URL: ledger.sandbox.secureRpcUrl,
      SERVICE_BASE_URL: service.url,
      SERVICE_EMAIL: `keeper-${wallets}-${Date.now()}@example.com`,
      ...env,
    });
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const metrics = new AgentMetrics();
    const owner = new OwnerOutbox(store, wallet.address, logger);
    let offset = 0;
    const now = () => Date.now() + offset;
    const keeper = () =>
      new SubscriptionKeeper(config, wallet, store, new LedgerView(config.CONTRACT_RPC_URL, wallet.address, undefined), logger, {
        metrics,
        owner,
        now,
      });
    const before = ledger.usdc(wallet.address);
    return {
      wallet,
      store,
      config,
      lines,
      metrics,
      keeper,
      later: (ms: number) => (offset += ms),
      paid: () => before - ledger.usdc(wallet.address),
      payments: () => store.payments.find({ wallet: wallet.address }),
      events: () => store.ownerEvents.find({ wallet: wallet.address }),
    };
  }

  /** Checks again (as the agent's polls do) until the keeper holds a key. */
  async function untilKey(keeper: SubscriptionKeeper): Promise<string> {
    return eventually(async () => {
      await keeper.checkIfDue(true);
      return keeper.apiKey();
    }, 'an API key');
  }

  it('buys a key at the offered price: the payment is kept before it is sent, collected once, on the ledger', async () => {
    const agent = await agentFor(5n * PRICE);
    const receiver = ledger.usdc(ledger.scenario.paymentReceiver);
    const keeper = agent.keeper();
    await keeper.checkIfDue();
    expect(keeper.apiKey()).toMatch(/^rp_test_/);
    expect(keeper.view()).toMatchObject({ active: true, tier: 'standard' });
    expect(keeper.view().refusal).toBeUndefined();
    expect(agent.paid()).toBe(PRICE);
    expect(ledger.usdc(ledger.scenario.paymentReceiver) - receiver).toBe(PRICE);
    const [payment] = await agent.payments();
    expect(payment).toMatchObject({ state: 'granted', amount: String(PRICE), payTo: ledger.scenario.paymentReceiver });
    expect(payment.txHash).toMatch(/^[0-9a-f]{64}$/);
    // Sealed like the key: the database alone does not hold a payment anyone could send.
    expect(payment.sealedPayment).toMatch(/^v1\./);
    expect(JSON.stringify(await agent.payments())).not.toContain('PAYMENT-SIGNATURE');
    expect((await agent.events()).map((event) => event.type)).toEqual(['subscription_renewed']);
    expect(agent.metrics.render()).toContain('agent_payments_total{outcome="granted"} 1');
  });

  it('a settlement slower than the service waits: the same payment is sent again until it is collected, paid once', async () => {
    const agent = await agentFor(5n * PRICE);
    const keeper = agent.keeper();
    ledger.pause();
    await keeper.checkIfDue();
    // Answered 202 settling (nothing can be final: no ledger closes); the payment is kept, no key yet.
    expect(keeper.apiKey()).toBeUndefined();
    const [kept] = await agent.payments();
    expect(kept).toMatchObject({ state: 'signed' });
    expect(kept.lastAnswer).toMatch(/^202/);
    // Polls go on meanwhile: each sends the identical payment (in progress), none signs a new one.
    for (let i = 0; i < 3; i += 1) await keeper.checkIfDue(true);
    expect((await agent.payments()).map((payment) => payment.id)).toEqual([kept.id]);
    expect(agent.paid()).toBe(0n);

    ledger.resume();
    await untilKey(keeper);
    const payments = await agent.payments();
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ id: kept.id, state: 'granted' });
    expect(agent.paid()).toBe(PRICE);
    expect(agent.lines.filter((line) => line.includes('payment for the API key signed'))).toHaveLength(1);
  }, 90_000);

  it('after a restart in the middle of a settlement, the kept payment is sent again, not a new one signed', async () => {
    const agent = await agentFor(5n * PRICE);
    ledger.pause();
    await agent.keeper().checkIfDue();
    const [kept] = await agent.payments();
    expect(kept).toMatchObject({ state: 'signed' });

    // A new process on the same database: it finds the payment and sends it as it is.
    const restarted = agent.keeper();
    await restarted.checkIfDue();
    expect((await agent.payments()).map((payment) => payment.id)).toEqual([kept.id]);
    ledger.resume();
    await untilKey(restarted);
    expect(await agent.payments()).toEqual([expect.objectContaining({ id: kept.id, state: 'granted' })]);
    expect(agent.paid()).toBe(PRICE);
  }, 90_000);

  it('a gateway that refuses every key cannot make it buy again and again: purchases stop at the spend cap', async () => {
    const agent = await agentFor(20n * PRICE, { SERVICE_MAX_PRICE: '0.2026', SERVICE_MAX_SPEND_30D: '0.4052' });
    const keeper = agent.keeper();
    await keeper.checkIfDue();
    expect(keeper.apiKey()).toBeDefined();
    // Every call with the key is answered 401, as a hostile or broken gateway would: the reader says so each time.
    for (let round = 0; round < 5; round += 1) {
      await keeper.keyRejected();
      agent.later(11 * MINUTE);
      await keeper.checkIfDue();
    }
    expect(agent.paid()).toBe(2n * PRICE);
    expect((await agent.payments()).map((payment) => payment.state)).toEqual(['granted', 'granted']);
    expect(keeper.view().refusal).toMatchObject({ reason: 'spend_cap_reached' });
    expect(keeper.view().error).toMatch(/would pass SERVICE_MAX_SPEND_30D \$0.4052/);
    // Refused at every check, told to the owner and logged once.
    expect(agent.metrics.render()).toMatch(/agent_payment_refusals_total\{reason="spend_cap_reached"\} [2-9]/);
    expect(agent.lines.filter((line) => line.includes('spend_cap_reached'))).toHaveLength(1);
    const told = (await agent.events()).map((event) => event.type);
    expect(told.filter((type) => type === 'refused')).toHaveLength(1);
    expect(told.filter((type) => type === 'subscription_lapsed')).toHaveLength(2);
    // Thirty days on, the window has room again.
    agent.later(30 * 24 * 60 * MINUTE);
    await keeper.checkIfDue(true);
    expect((await agent.payments()).map((payment) => payment.state)).toEqual(['granted', 'granted', 'granted']);
    expect(agent.paid()).toBe(3n * PRICE);
  }, 120_000);

  it('a 402 outside the limits is refused before anything is signed: no payment, the reason shown', async () => {
    const stranger = LedgerWallet.fromMnemonic(MNEMONIC, { index: 99 }).address;
    const agent = await agentFor(5n * PRICE, { SERVICE_PAY_TO: stranger });
    const keeper = agent.keeper();
    await keeper.checkIfDue();
    await keeper.checkIfDue(true);
    expect(keeper.apiKey()).toBeUndefined();
    expect(keeper.view()).toMatchObject({ active: false, refusal: { reason: 'wrong_pay_to' } });
    expect(keeper.view().refusal?.message).toContain(`not SERVICE_PAY_TO ${stranger}`);
    expect(await agent.payments()).toEqual([]);
    expect(agent.paid()).toBe(0n);
    const status = await fetch(`${service.url}/api/v1/keys/subscribe/status?email=${encodeURIComponent(agent.config.SERVICE_EMAIL ?? '')}`);
    expect(status.status).toBe(404);
    expect(agent.lines.filter((line) => line.includes('wrong_pay_to'))).toHaveLength(1);
    expect((await agent.events()).map((event) => [event.type, event.fields['reason']])).toEqual([['refused', 'wrong_pay_to']]);
  });
});
