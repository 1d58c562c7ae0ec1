/**
 * The agent against a hostile service's 402 (issue 17, "Pay only the agreed price"): a real agent process whose
 * `SERVICE_BASE_URL` is a stub that asks, in turn, to pay a receiver that is not `SERVICE_PAY_TO`, to pay in a foreign
 * asset the wallet holds, and to pay most of the wallet's USDC. Each time: nothing signed reaches the stub or the
 * sandbox ledger (the wallet's balances are unchanged), `/status.subscription.refusal` names the reason, and the
 * agent keeps protecting from the ledger: the critical position is closed, confirmed on the ledger.
 */
import { type AppProcess, type Stack, openBorrower, startStack } from '@rp/dev';
import type { ExactRequirements } from '@rp/ledger';
import { LedgerRpc, LedgerWallet } from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, UNIT } from '@rp/sandbox';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { Keypair } from '@stellar/stellar-sdk';
import type { AgentStatus } from './support/agents';
import { type HostilePaymentGateway, startHostilePaymentGateway } from './support/hostile-payment-gateway';

const DEMO_XLM_PRICE = 3_000_000n;
const CRITICAL_XLM_PRICE = 2_800_000n;
/** The wallet holds this much USDC besides its position (what a greedy 402 goes after). */
const HELD_USDC = 1_500n * UNIT;

type Status = AgentStatus & {
  subscription: AgentStatus['subscription'] & { refusal?: { reason: string; message: string; at: string } };
};

describe('the agent facing a hostile 402', () => {
  let stack: Stack;
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let rpc: LedgerRpc;
  let foreign: string;
  const started: { stop(): Promise<unknown> }[] = [];
  let wallets = 0;

  beforeAll(async () => {
    // The sandbox alone: the agent is pointed at a stub service, not at our gateway.
    stack = await startStack({ apps: [], ledgerIntervalMs: 250 });
    sandbox = stack.sandbox;
    scenario = sandbox.scenario as LoadedScenario;
    rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    // A stablecoin that is not the agent's payment asset; the wallets hold some, so a payment in it would go through.
    foreign = sandbox.control.setup.deployToken('EURC', { name: 'Not the agreed asset' });
  }, 120_000);

  afterEach(async () => {
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_XLM_PRICE);
    for (const app of started.splice(0).reverse()) await app.stop();
  });

  afterAll(async () => {
    await stack?.close();
  });

  const usdc = (owner: string) => sandbox.control.setup.balance(scenario.usdc, owner);
  const eurc = (owner: string) => sandbox.control.setup.balance(foreign, owner);

  /** A fresh wallet with a position that turns critical at `CRITICAL_XLM_PRICE`, USDC and the foreign coin held. */
  function borrower() {
    wallets += 1;
    const mnemonic = generateMnemonic(wordlist);
    const wallet = LedgerWallet.fromMnemonic(mnemonic);
    openBorrower(sandbox, wallet.address, `hostile-402 wallet ${wallets}`, {
      xlm: 10_000n * UNIT,
      usdc: 1_900n * UNIT,
      keepUsdc: 0n,
      extraUsdc: HELD_USDC,
    });
    sandbox.control.setup.mint(foreign, wallet.address, HELD_USDC);
    return { mnemonic, address: wallet.address };
  }

  const honestOffer = (): ExactRequirements => ({
    scheme: 'exact',
    network: 'stellar:testnet',
    amount: '2026000',
    asset: scenario.usdc,
    payTo: scenario.paymentReceiver,
    maxTimeoutSeconds: 600,
    extra: { areFeesSponsored: true },
  });

  async function agentFor(owner: { mnemonic: string }, stub: HostilePaymentGateway, env: Record<string, string> = {}) {
    // The wiring gives the ledger (over HTTPS, the x402 client's only way), the pool and the receiver.
    const agent = await stack.start('agent', {
      env: {
        LEDGER_MNEMONIC: owner.mnemonic,
        SERVICE_BASE_URL: stub.url,
        SERVICE_EMAIL: `hostile-${wallets}@example.com`,
        POLL_INTERVAL_MS: '1000',
        BLEND_POOL_FACTORY: undefined,
        INTERNAL_TOKEN: undefined,
        ...env,
      },
    });
    started.push(agent);
    return agent;
  }

  async function status(agent: AppProcess): Promise<Status> {
    return (await (await fetch(`${agent.url}/status`)).json()) as Status;
  }

  async function until(agent: AppProcess, check: (s: Status) => boolean, what: string): Promise<Status> {
    const deadline = Date.now() + 90_000;
    let last: Status | undefined;
    while (Date.now() < deadline) {
      last = await status(agent).catch(() => last);
      if (last && check(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`agent never reached: ${what}; last status ${JSON.stringify(last)}\n${agent.lines.slice(-15).join('\n')}`);
  }

  it.each<[string, (stranger: string) => Partial<ExactRequirements>, Record<string, string>, string]>([
    [
      'a receiver that is not SERVICE_PAY_TO',
      (stranger) => ({ payTo: stranger }),
      { SERVICE_PAY_TO: '' },
      'wrong_pay_to',
    ],
    ['a foreign asset the wallet holds', () => ({ asset: '' }), {}, 'wrong_asset'],
    [
      "most of the wallet's USDC",
      () => ({ amount: String((HELD_USDC * 9n) / 10n) }),
      {},
      'price_above_limit',
    ],
  ])('%s: nothing signed, the reason in /status, and the position still closed from the ledger', async (_case, change, env, reason) => {
    const owner = borrower();
    const stranger = Keypair.random().publicKey();
    const offer = { ...honestOffer(), ...change(stranger) };
    if (offer.asset === '') offer.asset = foreign;
    const stub = await startHostilePaymentGateway(offer);
    started.push({ stop: () => stub.close() });
    const settings = { ...env };
    if (settings['SERVICE_PAY_TO'] === '') settings['SERVICE_PAY_TO'] = scenario.paymentReceiver;
    const before = { usdc: usdc(owner.address), eurc: eurc(owner.address), receiver: usdc(scenario.paymentReceiver) };

    const agent = await agentFor(owner, stub, settings);
    const refused = await until(
      agent,
      (s) => s.subscription.refusal?.reason === reason && s.mode === 'degraded' && s.positions.length === 1,
      `the ${reason} refusal shown while protecting from the ledger`,
    );
    expect(refused.subscription).toMatchObject({ active: false, refusal: { reason } });
    expect(refused.subscription.error).toContain('nothing was signed');
    // The stub was asked, and no payment ever came back to it; no balance moved on the ledger.
    expect(stub.requests).toContain('POST /api/v1/keys/subscribe');
    expect(stub.payments).toEqual([]);
    expect({ usdc: usdc(owner.address), eurc: eurc(owner.address), receiver: usdc(scenario.paymentReceiver) }).toEqual(before);
    expect(usdc(stranger)).toBe(0n);
    expect(await (await fetch(`${agent.url}/metrics`)).text()).toMatch(
      new RegExp(`agent_payment_refusals_total\\{reason="${reason}"\\} [1-9]`),
    );
    expect(agent.lines.filter((line) => line.includes(`payment refused (${reason})`))).toHaveLength(1);

    // It goes on protecting: the position turns critical and is closed from the ledger, confirmed.
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, CRITICAL_XLM_PRICE);
    const closed = await until(
      agent,
      (s) => s.recentCloses.some((close) => close.outcome === 'confirmed'),
      'a close built by the agent itself, confirmed',
    );
    const close = closed.recentCloses.find((entry) => entry.outcome === 'confirmed');
    expect(close?.riskSnapshot.source).toBe('ledger');
    expect((await rpc.getTransaction(close?.txHash ?? '')).status).toBe('SUCCESS');
    // Still nothing paid to anyone for a key.
    expect(stub.payments).toEqual([]);
    expect(usdc(scenario.paymentReceiver)).toBe(before.receiver);
    expect(usdc(stranger)).toBe(0n);
    expect(eurc(owner.address)).toBe(before.eurc);
  }, 180_000);
});
