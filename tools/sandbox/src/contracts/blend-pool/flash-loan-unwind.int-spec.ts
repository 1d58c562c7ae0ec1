import {
  BLEND_POOL_CALL_ERRORS,
  BlendPoolReader,
  LedgerRpc,
  LedgerWallet,
  SimulationFailedError,
  SwapReceiverClient,
  TokenClient,
  type UnwindPlan,
  assemble,
  buildInvocation,
  findAccount,
  planUnwindWithSwap,
  poolFlashLoanOperation,
  simulate,
  submitAndWait,
} from '@rp/ledger';
import type { xdr } from '@stellar/stellar-sdk';
import { DEMO_WALLETS, UNIT, startSandbox, type RunningSandbox } from '../../index';

/**
 * The UNWIND construction of docs/adr/010 against the sandbox pool and swap receiver, through `libs/ledger` only: a
 * wallet with XLM collateral, USDC debt and no USDC closes its position in one `flash_loan` once it has approved the
 * pool for the USDC that settlement pulls with `transfer_from`; without that approval the same invocation fails in
 * simulation with the token's AllowanceError (9).
 */
describe('flash-loan unwind on the sandbox pool', () => {
  let sandbox: RunningSandbox;
  let rpc: LedgerRpc;
  let reader: BlendPoolReader;
  const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 77 });

  const scenario = () => {
    if (!sandbox.scenario) throw new Error('demo scenario missing');
    return sandbox.scenario;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 100 });
    rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    reader = new BlendPoolReader({ ledger: rpc, simulator: rpc, networkPassphrase: await rpc.networkPassphrase() });
    const { setup } = sandbox.control;
    setup.fund(wallet.address, 100n * UNIT, 'unwinding wallet');
    setup.openPosition(scenario().pool, {
      user: wallet.address,
      supplyCollateral: [{ asset: scenario().xlm, amount: 10_000n * UNIT }],
      borrow: [{ asset: scenario().usdc, amount: 1_900n * UNIT }],
    });
    // It spent what it borrowed: it holds no USDC.
    setup.transfer(
      scenario().usdc,
      wallet.address,
      scenario().paymentReceiver,
      setup.balance(scenario().usdc, wallet.address),
    );
  });

  afterAll(() => sandbox.close());

  async function plan(): Promise<UnwindPlan> {
    const pool = await reader.loadPool(scenario().pool);
    const [prices, positions] = await Promise.all([
      reader.loadPrices(pool),
      reader.loadPositions(scenario().pool, [wallet.address]),
    ]);
    const held = positions.get(wallet.address);
    if (!held) throw new Error('no position');
    const receiver = new SwapReceiverClient(rpc, scenario().swapReceiver);
    expect(await receiver.route(scenario().xlm)).toBe(scenario().usdc);
    const collateral = 10_000n * UNIT;
    const swap = {
      tokenIn: scenario().xlm,
      tokenOut: scenario().usdc,
      amountIn: collateral,
      amountOut: await receiver.quote(scenario().xlm, collateral),
    };
    const result = planUnwindWithSwap(
      { reserves: pool.reserves, positions: held, prices },
      { balances: new Map() },
      50,
      swap,
      scenario().swapReceiver,
    );
    if ('refused' in result) throw new Error(`refused: ${result.refused}`);
    return result;
  }

  async function signedInvocation(op: xdr.Operation) {
    const account = await findAccount(rpc, wallet.address);
    if (!account) throw new Error('no account');
    const tx = buildInvocation({
      op,
      source: account.address,
      sequence: account.sequence,
      validUntil: new Date(Date.now() + 120_000),
      network: 'ledger:testnet',
    });
    const prepared = assemble(tx, await simulate(rpc, tx, BLEND_POOL_CALL_ERRORS));
    return wallet.signTransaction(prepared);
  }

  it('fails in simulation without an allowance: settlement pulls the USDC with transfer_from', async () => {
    const unwind = await plan();
    const op = poolFlashLoanOperation(scenario().pool, wallet.address, unwind.flashLoan!, unwind.requests);
    const failure = await signedInvocation(op).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SimulationFailedError);
    expect(failure).toMatchObject({ code: 9, errorName: 'AllowanceError' });
  });

  it('closes the whole position in one flash_loan once the pool may pull the USDC', async () => {
    const unwind = await plan();
    const pull = unwind.pulls.get(scenario().usdc) ?? 0n;
    const usdc = new TokenClient(rpc, scenario().usdc);
    const latest = (await rpc.getLatestLedger()).sequence;
    const approval = await signedInvocation(
      usdc.approveInvocation(wallet.address, scenario().pool, pull, latest + 100),
    );
    expect((await submitAndWait(rpc, approval, { pollIntervalMs: 50, timeoutMs: 10_000 })).status).toBe('SUCCESS');

    const xlmBefore = sandbox.control.setup.balance(scenario().xlm, wallet.address);
    const op = poolFlashLoanOperation(scenario().pool, wallet.address, unwind.flashLoan!, unwind.requests);
    const outcome = await submitAndWait(rpc, await signedInvocation(op), { pollIntervalMs: 50, timeoutMs: 10_000 });
    expect(outcome.status).toBe('SUCCESS');

    const after = (await reader.loadPositions(scenario().pool, [wallet.address])).get(wallet.address);
    expect([after?.collateral.size, after?.liabilities.size]).toEqual([0, 0]);
    // The remainder is the wallet's: the XLM not sold, and what the sale paid beyond the debt.
    const xlmGained = sandbox.control.setup.balance(scenario().xlm, wallet.address) - xlmBefore;
    expect(xlmGained).toBeGreaterThan(10_000n * UNIT - unwind.flashLoan!.amount - UNIT);
    expect(sandbox.control.setup.balance(scenario().usdc, wallet.address)).toBeGreaterThan(0n);
  });
});
