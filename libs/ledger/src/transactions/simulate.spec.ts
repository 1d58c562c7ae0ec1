import {
  Account,
  Contract,
  Networks,
  SorobanDataBuilder,
  StrKey,
  TransactionBuilder,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { LedgerRpc } from '../rpc/ledger-rpc';
import { registerContractErrors } from './contract-errors';
import { SimulationFailedError, assemble, simulate } from './simulate';

const ledger = new LedgerRpc({ rpcUrl: 'http://127.0.0.1:9', network: 'ledger:testnet' });
const tx = new TransactionBuilder(new Account('GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6', '1'), {
  fee: '100',
  networkPassphrase: Networks.TESTNET,
})
  .addOperation(new Contract(StrKey.encodeContract(Buffer.alloc(32, 2))).call('submit'))
  .setTimeout(30)
  .build();

const failed = {
  id: '1',
  latestLedger: 10,
  events: [],
  error: 'HostError: Error(Contract, #1205)\n\nEvent log (newest first):\n   0: [Diagnostic Event] ...',
  _parsed: true,
} as rpc.Api.SimulateTransactionErrorResponse;

describe('simulate', () => {
  afterEach(() => jest.restoreAllMocks());

  it('throws SimulationFailedError with the decoded contract error', async () => {
    registerContractErrors({ 1205: 'InvalidHf' });
    jest.spyOn(ledger, 'simulateTransaction').mockResolvedValue(failed);
    const error = (await simulate(ledger, tx).catch((e: unknown) => e)) as SimulationFailedError;
    expect(error).toBeInstanceOf(SimulationFailedError);
    expect(error).toMatchObject({ code: 1205, errorName: 'InvalidHf' });
    expect(error.message).toBe('simulation failed: HostError: Error(Contract, #1205) (InvalidHf)');
    expect(error.hostError).toContain('Event log');
    expect(() => assemble(tx, failed)).toThrow(SimulationFailedError);
  });

  it('returns a successful simulation, which assemble applies', async () => {
    const success = {
      id: '1',
      latestLedger: 10,
      events: [],
      transactionData: new SorobanDataBuilder().setResourceFee(5000),
      minResourceFee: '5000',
      result: { auth: [], retval: xdr.ScVal.scvVoid() },
      _parsed: true,
    } as unknown as rpc.Api.SimulateTransactionSuccessResponse;
    jest.spyOn(ledger, 'simulateTransaction').mockResolvedValue(success);
    await expect(simulate(ledger, tx)).resolves.toBe(success);
    const assembled = assemble(tx, success);
    expect(Number(assembled.fee)).toBe(100 + 5000);
  });
});
