/**
 * The agent against a hostile service's `POST /txb/build` (issue 17 §1, "Tested as an attacker would"): a real agent
 * process whose `SERVICE_BASE_URL` is a stub that reports the wallet's position as critical and answers the build, in
 * turn, with a classic payment to a stranger, a setOptions adding a signer, a transfer to a stranger inside the
 * authorization tree, an approve to a stranger, a pool the factory does not know, a flash loan through an unknown
 * receiver, a fee above the cap and no time bound. Each time: nothing signed reaches the stub or the sandbox ledger,
 * the stranger gets nothing and the wallet's signers are unchanged, `/status.refusals` names the reason, and the
 * critical position is still closed, built by the agent from the ledger and confirmed.
 */
import { type AppProcess, type Stack, openBorrower, startStack } from '@rp/dev';
import {
  LedgerRpc,
  LedgerWallet,
  REQUEST_TYPES,
  TokenClient,
  accountLedgerKey,
  poolFlashLoanOperation,
  poolSubmitOperation,
  readAccountBalance,
} from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, UNIT } from '@rp/sandbox';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import {
  Account,
  Address,
  Asset,
  Contract,
  Keypair,
  Networks,
  Operation,
  TimeoutInfinite,
  TransactionBuilder,
  nativeToScVal,
  xdr,
} from '@stellar/stellar-sdk';
import type { AgentStatus } from './support/agents';
import { type HostileBuild, type HostileServiceGateway, startHostileServiceGateway } from './support/hostile-service-gateway';

const DEMO_XLM_PRICE = 3_000_000n;
const CRITICAL_XLM_PRICE = 2_800_000n;
const STRANGER = Keypair.random().publicKey();

interface Attack {
  readonly wallet: string;
  readonly sequence: string;
  readonly latestLedger: number;
}

describe('the agent facing a hostile transaction builder', () => {
  let stack: Stack;
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let rpc: LedgerRpc;
  let impostorPool: string;
  let rogueReceiver: string;
  const started: { stop(): Promise<unknown> }[] = [];
  let wallets = 0;

  beforeAll(async () => {
    // The sandbox alone: the agent is pointed at a stub service, not at our gateway.
    stack = await startStack({ apps: [], ledgerIntervalMs: 250 });
    sandbox = stack.sandbox;
    scenario = sandbox.scenario as LoadedScenario;
    rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    const setup = sandbox.control.setup;
    setup.fund(STRANGER, 10n * UNIT, 'the stranger');
    // A pool like the real one that the factory never made, and a receiver that is not the operator's.
    impostorPool = setup.deployPool('Impostor Pool', scenario.oracle, { registered: false });
    setup.addReserve(impostorPool, scenario.usdc);
    rogueReceiver = setup.deploySwapReceiver(scenario.oracle, 0, [[scenario.xlm, scenario.usdc]]);
  }, 120_000);

  afterEach(async () => {
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_XLM_PRICE);
    for (const app of started.splice(0).reverse()) await app.stop();
  });

  afterAll(async () => {
    await stack?.close();
  });

  const usdc = (owner: string) => sandbox.control.setup.balance(scenario.usdc, owner);
  const native = async (owner: string) => (await readAccountBalance(rpc, owner))?.nativeBalance ?? 0n;
  async function signers(owner: string): Promise<string> {
    const account = (await rpc.getLedgerEntries([accountLedgerKey(owner)])).entries[0].val.account();
    return `${account.signers().length} signers, thresholds ${account.thresholds().toString('hex')}`;
  }

  function borrower() {
    wallets += 1;
    const mnemonic = generateMnemonic(wordlist);
    const wallet = LedgerWallet.fromMnemonic(mnemonic);
    openBorrower(sandbox, wallet.address, `hostile-txb wallet ${wallets}`, {
      xlm: 10_000n * UNIT,
      usdc: 1_900n * UNIT,
      keepUsdc: 0n,
      extraUsdc: 1_500n * UNIT,
    });
    return { mnemonic, address: wallet.address };
  }

  /** An envelope of the wallet's next sequence number, valid five minutes unless `infinite`. */
  function envelope(attack: Attack, operation: xdr.Operation, options: { fee?: string; infinite?: boolean; extra?: xdr.Operation } = {}) {
    const builder = new TransactionBuilder(new Account(attack.wallet, attack.sequence), {
      fee: options.fee ?? '100000',
      networkPassphrase: Networks.TESTNET,
    }).addOperation(operation);
    if (options.extra) builder.addOperation(options.extra);
    if (options.infinite) builder.setTimeout(TimeoutInfinite);
    else builder.setTimeout(300);
    return builder.build().toXDR();
  }

  const repayOne = (attack: Attack, pool = scenario.pool) =>
    poolSubmitOperation(pool, attack.wallet, [{ requestType: REQUEST_TYPES.Repay, address: scenario.usdc, amount: UNIT }]);

  /** The honest-looking repay, its authorization also letting USDC go from the wallet to the stranger. */
  function transferInAuthorization(attack: Attack): xdr.Operation {
    const operation = repayOne(attack);
    const invoke = operation.body().invokeHostFunctionOp();
    const call = invoke.hostFunction().invokeContract();
    const fn = (target: string, name: string, args: xdr.ScVal[]) =>
      xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: new Address(target).toScAddress(), functionName: name, args }),
      );
    const theft = new xdr.SorobanAuthorizedInvocation({
      function: fn(scenario.usdc, 'transfer', [
        new Address(attack.wallet).toScVal(),
        new Address(STRANGER).toScVal(),
        nativeToScVal(1_500n * UNIT, { type: 'i128' }),
      ]),
      subInvocations: [],
    });
    invoke.auth([
      new xdr.SorobanAuthorizationEntry({
        credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
        rootInvocation: new xdr.SorobanAuthorizedInvocation({
          function: fn(scenario.pool, 'submit', call.args()),
          subInvocations: [theft],
        }),
      }),
    ]);
    return operation;
  }

  const attacks: [string, (attack: Attack) => HostileBuild, string][] = [
    [
      'a classic payment to a stranger',
      (a) => ({ transactionXdr: envelope(a, Operation.payment({ destination: STRANGER, asset: Asset.native(), amount: '900' })), route: 'submit' }),
      'not_one_invocation',
    ],
    [
      'a setOptions adding a signer',
      (a) => ({
        transactionXdr: envelope(a, Operation.setOptions({ signer: { ed25519PublicKey: STRANGER, weight: 255 }, masterWeight: 0 })),
        route: 'approve',
      }),
      'not_one_invocation',
    ],
    ['a transfer to a stranger inside the authorization tree', (a) => ({ transactionXdr: envelope(a, transferInAuthorization(a)), route: 'submit' }), 'auth_moves_funds'],
    [
      'an approve to a stranger',
      (a) => ({
        transactionXdr: envelope(
          a,
          new Contract(scenario.usdc).call(
            'approve',
            new Address(a.wallet).toScVal(),
            new Address(STRANGER).toScVal(),
            nativeToScVal(1_500n * UNIT, { type: 'i128' }),
            nativeToScVal(a.latestLedger + 100, { type: 'u32' }),
          ),
        ),
        route: 'approve',
      }),
      'wrong_spender',
    ],
    ['a pool the factory does not know', (a) => ({ transactionXdr: envelope(a, repayOne(a, impostorPool)), route: 'submit' }), 'unknown_pool'],
    [
      'a flash loan through an unknown receiver',
      (a) => ({
        transactionXdr: envelope(
          a,
          poolFlashLoanOperation(scenario.pool, a.wallet, { contract: rogueReceiver, asset: scenario.xlm, amount: 100n * UNIT }, [
            { requestType: REQUEST_TYPES.Repay, address: scenario.xlm, amount: 100n * UNIT },
          ]),
        ),
        route: 'flash-loan',
      }),
      'unknown_receiver',
    ],
    ['a fee above the cap', (a) => ({ transactionXdr: envelope(a, repayOne(a), { fee: '4000000000' }), route: 'submit' }), 'fee_above_cap'],
    ['no time bound', (a) => ({ transactionXdr: envelope(a, repayOne(a), { infinite: true }), route: 'submit' }), 'no_time_bound'],
  ];

  async function status(agent: AppProcess): Promise<AgentStatus> {
    return (await (await fetch(`${agent.url}/status`)).json()) as AgentStatus;
  }

  async function until(agent: AppProcess, check: (s: AgentStatus) => boolean, what: string): Promise<AgentStatus> {
    const deadline = Date.now() + 120_000;
    let last: AgentStatus | undefined;
    while (Date.now() < deadline) {
      last = await status(agent).catch(() => last);
      if (last && check(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`agent never reached: ${what}; last status ${JSON.stringify(last)}\n${agent.lines.slice(-15).join('\n')}`);
  }

  it.each(attacks)('%s: refused, nothing signed reaches anyone, and the close is built from the ledger', async (_name, attack, reason) => {
    const owner = borrower();
    const stub: HostileServiceGateway = await startHostileServiceGateway({
      offer: {
        scheme: 'exact',
        network: 'stellar:testnet',
        amount: '2026000',
        asset: scenario.usdc,
        payTo: scenario.paymentReceiver,
        maxTimeoutSeconds: 600,
        extra: { areFeesSponsored: true },
      },
      pool: scenario.pool,
      build: async () => {
        const account = await readAccountBalance(rpc, owner.address);
        const latest = await rpc.getLatestLedger();
        return attack({ wallet: owner.address, sequence: account?.sequence ?? '0', latestLedger: latest.sequence });
      },
    });
    started.push({ stop: () => stub.close() });
    const before = {
      stranger: { xlm: await native(STRANGER), usdc: usdc(STRANGER) },
      signers: await signers(owner.address),
      xlm: await native(owner.address),
    };
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, CRITICAL_XLM_PRICE);

    // The wiring gives the ledger (over HTTPS), the pool factory and the receiver.
    const agent = await stack.start('agent', {
      env: {
        LEDGER_MNEMONIC: owner.mnemonic,
        SERVICE_BASE_URL: stub.url,
        SERVICE_EMAIL: `hostile-txb-${wallets}@example.com`,
        SERVICE_PAY_TO: scenario.paymentReceiver,
        POLL_INTERVAL_MS: '1000',
        // No WATCHED_POOLS: the pool is trusted because the sandbox's pool factory knows it.
        WATCHED_POOLS: '',
        INTERNAL_TOKEN: undefined,
      },
    });
    started.push(agent);

    const closed = await until(
      agent,
      (s) =>
        s.refusals.some((refusal) => refusal.source === 'service' && refusal.reason === reason) &&
        s.recentCloses.some((close) => close.outcome === 'confirmed'),
      `the ${reason} refusal and a close confirmed`,
    );
    expect(closed.mode).toBe('service');
    expect(stub.builds.length).toBeGreaterThan(0);
    const close = closed.recentCloses.find((entry) => entry.outcome === 'confirmed');
    expect((await rpc.getTransaction(close?.txHash ?? '')).status).toBe('SUCCESS');

    // Nothing signed reached the stub, and none of its transactions reached the ledger.
    expect(stub.submits).toEqual([]);
    for (const built of stub.builds) {
      const hash = TransactionBuilder.fromXDR(built, Networks.TESTNET).hash().toString('hex');
      expect((await rpc.getTransaction(hash)).status).toBe('NOT_FOUND');
    }
    // The stranger got nothing: no XLM, no USDC, no allowance; the wallet's signers are as they were.
    expect({ xlm: await native(STRANGER), usdc: usdc(STRANGER) }).toEqual(before.stranger);
    expect(await new TokenClient(rpc, scenario.usdc).allowance(owner.address, STRANGER)).toBe(0n);
    expect(await signers(owner.address)).toBe(before.signers);
    // The wallet paid only the fees of its own transactions (far under one XLM in the sandbox).
    expect(before.xlm - (await native(owner.address))).toBeLessThan(UNIT);

    // Each refusal: one warning line and the counter by reason.
    const refusals = (await status(agent)).refusals;
    expect(agent.lines.filter((line) => line.includes('refused to sign a transaction'))).toHaveLength(refusals.length);
    expect(await (await fetch(`${agent.url}/metrics`)).text()).toMatch(
      new RegExp(`agent_refused_transactions_total\\{reason="${reason}"\\} [1-9]`),
    );
  }, 200_000);
});
