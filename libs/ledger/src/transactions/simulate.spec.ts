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
import { SimulationFailedError, assemble, simulate, simulateForAssembly } from './simulate';

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
    jest.spyOn(ledger, 'simulateTransaction').mockResolvedValue(failed);
    const error = (await simulate(ledger, tx, { 1205: 'InvalidHf' }).catch((e: unknown) => e)) as SimulationFailedError;
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

describe('simulateForAssembly', () => {
  afterEach(() => jest.restoreAllMocks());
  const data = new SorobanDataBuilder().setResourceFee(7000).build().toXDR('base64');
  const event = xdr.DiagnosticEvent.fromXDR(
    new xdr.DiagnosticEvent({
      inSuccessfulContractCall: true,
      event: new xdr.ContractEvent({
        ext: new xdr.ExtensionPoint(0),
        contractId: null,
        type: xdr.ContractEventType.diagnostic(),
        body: new xdr.ContractEventBody(0, new xdr.ContractEventV0({ topics: [], data: xdr.ScVal.scvVoid() })),
      }),
    }).toXDR(),
  );

  it('decodes the resources, fee, authorization and return value, and leaves events and state changes alone', async () => {
    jest.spyOn(ledger, 'simulateTransactionRaw').mockResolvedValue({
      id: '1',
      latestLedger: 10,
      transactionData: data,
      minResourceFee: '7000',
      events: [event.toXDR('base64')],
      results: [{ auth: [], xdr: xdr.ScVal.scvU32(7).toXDR('base64') }],
      stateChanges: [{ type: 2, key: 'not decoded', before: 'not decoded', after: 'not decoded' }],
    } as unknown as rpc.Api.RawSimulateTransactionResponse);
    const simulation = await simulateForAssembly(ledger, tx);
    expect(simulation).toMatchObject({ minResourceFee: '7000', events: [] });
    expect(simulation.result?.retval.u32()).toBe(7);
    expect(Number(assemble(tx, simulation).fee)).toBe(100 + 7000);
  });

  it('throws SimulationFailedError for a refused simulation, as simulate does', async () => {
    jest.spyOn(ledger, 'simulateTransactionRaw').mockResolvedValue({
      id: '1',
      latestLedger: 10,
      error: 'HostError: Error(Contract, #1205)',
      events: [],
    } as unknown as rpc.Api.RawSimulateTransactionResponse);
    await expect(simulateForAssembly(ledger, tx, { 1205: 'InvalidHf' })).rejects.toMatchObject({
      code: 1205,
      errorName: 'InvalidHf',
    });
  });
});
