import { Networks, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { PoolContractV2, PoolV2, RequestType, type Network } from '@blend-capital/blend-sdk';
import {
  BLEND_POOL_CALL_ERRORS,
  LedgerRpc,
  LedgerWallet,
  SimulationFailedError,
  assemble,
  simulate,
  submitAndWait,
} from '@rp/ledger';
import { DEMO_WALLETS, startSandbox, type RunningSandbox } from '../../index';

/**
 * The demo's endangered wallet drives the sandbox pool through the blend-sdk's own contract client, signing with
 * its SEP-5 key and submitting through `libs/ledger`: a repay lands and shrinks the debt; a collateral withdrawal
 * that would leave the health factor under 1 fails simulation with InvalidHf (1205).
 */
describe('Blend pool driven by a SEP-5 wallet', () => {
  let sandbox: RunningSandbox;
  let ledger: LedgerRpc;
  let network: Network;
  const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.endangered.mnemonic);

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 100 });
    ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    network = { rpc: sandbox.rpcUrl, passphrase: Networks.TESTNET, opts: { allowHttp: true } };
  });

  afterAll(() => sandbox.close());

  const scenario = () => {
    if (!sandbox.scenario) throw new Error('demo scenario missing');
    return sandbox.scenario;
  };

  async function invocation(requestType: RequestType, asset: string, amount: bigint) {
    const operation = new PoolContractV2(scenario().pool).submit({
      from: wallet.address,
      spender: wallet.address,
      to: wallet.address,
      requests: [{ request_type: requestType, address: asset, amount }],
    });
    const account = await ledger.getAccount(wallet.address);
    return new TransactionBuilder(account, { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(xdr.Operation.fromXDR(operation, 'base64'))
      .setTimeout(120)
      .build();
  }

  async function debtOf(asset: string): Promise<bigint> {
    const pool = await PoolV2.load(network, scenario().pool);
    const user = await pool.loadUser(wallet.address);
    const reserve = pool.reserves.get(asset);
    if (!reserve) throw new Error('reserve missing');
    return user.getLiabilityDTokens(reserve);
  }

  it('accepts a repay signed by the wallet and lowers the debt', async () => {
    const debtBefore = await debtOf(scenario().usdc);
    const tx = await invocation(RequestType.Repay, scenario().usdc, 50n * 10_000_000n);
    const prepared = assemble(tx, await simulate(ledger, tx));
    wallet.signTransaction(prepared);
    const outcome = await submitAndWait(ledger, prepared, { pollIntervalMs: 100, timeoutMs: 10_000 });
    expect(outcome.status).toBe('SUCCESS');
    const debtAfter = await debtOf(scenario().usdc);
    expect(debtAfter).toBeLessThan(debtBefore);
    expect(debtBefore - debtAfter).toBeGreaterThan(45n * 10_000_000n);
  });

  it('fails simulation of a collateral withdrawal that would break the health factor with InvalidHf (1205)', async () => {
    const tx = await invocation(RequestType.WithdrawCollateral, scenario().xlm, 5_000n * 10_000_000n);
    const failure = await simulate(ledger, tx, BLEND_POOL_CALL_ERRORS).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SimulationFailedError);
    expect(failure).toMatchObject({ code: 1205, errorName: 'InvalidHf' });
    const raw = await new rpc.Server(sandbox.rpcUrl, { allowHttp: true }).simulateTransaction(tx);
    expect((raw as rpc.Api.SimulateTransactionErrorResponse).error).toContain('Error(Contract, #1205)');
  });
});
