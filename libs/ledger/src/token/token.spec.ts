import { Address, SorobanDataBuilder, StrKey, nativeToScVal, rpc, scValToNative, xdr } from '@stellar/stellar-sdk';
import { InvalidAddressError, isAccountAddress } from '../network/addresses';
import { USDC_CONTRACT } from '../network/usdc';
import { LedgerRpc } from '../rpc/ledger-rpc';
import { SimulationFailedError } from '../transactions/simulate';
import { InvalidTokenAmountError, assertTokenAmount } from './token-amount';
import { SIMULATION_SOURCE } from '../transactions/contract-read';
import { TokenClient, UnexpectedTokenValueError } from './token-client';

const FROM = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const TO = StrKey.encodeContract(Buffer.alloc(32, 9));
const TOKEN = USDC_CONTRACT['ledger:testnet'];

function returning(retval: xdr.ScVal): rpc.Api.SimulateTransactionSuccessResponse {
  return {
    id: '1',
    latestLedger: 10,
    events: [],
    transactionData: new SorobanDataBuilder(),
    minResourceFee: '0',
    result: { auth: [], retval },
    _parsed: true,
  } as unknown as rpc.Api.SimulateTransactionSuccessResponse;
}

/** The invocation a simulated transaction carries: function name and arguments. */
function invoked(op: xdr.Operation): { fn: string; args: unknown[]; contract: string } {
  const call = op.body().invokeHostFunctionOp().hostFunction().invokeContract();
  return {
    contract: Address.fromScAddress(call.contractAddress()).toString(),
    fn: call.functionName().toString(),
    args: call.args().map((arg) => scValToNative(arg)),
  };
}

describe('TokenClient', () => {
  const ledger = new LedgerRpc({ rpcUrl: 'http://127.0.0.1:9', network: 'ledger:testnet' });
  const token = new TokenClient(ledger, TOKEN);
  afterEach(() => jest.restoreAllMocks());

  it('simulates from a well-formed placeholder source', () => {
    expect(isAccountAddress(SIMULATION_SOURCE)).toBe(true);
  });

  it('reads balance as bigint through a read-only simulation', async () => {
    const simulate = jest
      .spyOn(ledger, 'simulateTransaction')
      .mockResolvedValue(returning(nativeToScVal(12_345_678_901_234_567_890n, { type: 'i128' })));
    await expect(token.balance(FROM)).resolves.toBe(12_345_678_901_234_567_890n);
    const tx = simulate.mock.calls[0][0];
    const built = xdr.TransactionEnvelope.fromXDR(tx.toXDR(), 'base64').v1().tx();
    expect(invoked(built.operations()[0])).toEqual({ contract: TOKEN, fn: 'balance', args: [FROM] });
    expect(built.seqNum().toString()).toBe('1');
  });

  it('reads decimals, name and symbol', async () => {
    jest
      .spyOn(ledger, 'simulateTransaction')
      .mockResolvedValueOnce(returning(nativeToScVal(7, { type: 'u32' })))
      .mockResolvedValueOnce(returning(nativeToScVal('USD Coin', { type: 'string' })))
      .mockResolvedValueOnce(returning(nativeToScVal('USDC', { type: 'string' })));
    await expect(token.decimals()).resolves.toBe(7);
    await expect(token.name()).resolves.toBe('USD Coin');
    await expect(token.symbol()).resolves.toBe('USDC');
  });

  it('refuses values of the wrong type and surfaces simulation failures', async () => {
    jest.spyOn(ledger, 'simulateTransaction').mockResolvedValueOnce(returning(nativeToScVal('x', { type: 'string' })));
    await expect(token.balance(FROM)).rejects.toBeInstanceOf(UnexpectedTokenValueError);
    jest.spyOn(ledger, 'simulateTransaction').mockResolvedValueOnce({
      id: '1',
      latestLedger: 1,
      events: [],
      error: 'HostError: Error(Contract, #13)',
      _parsed: true,
    } as rpc.Api.SimulateTransactionErrorResponse);
    await expect(token.decimals()).rejects.toBeInstanceOf(SimulationFailedError);
  });

  it('builds a transfer invocation with an i128 amount', () => {
    const op = token.transferInvocation(FROM, TO, 1_000_000n);
    expect(invoked(op)).toEqual({ contract: TOKEN, fn: 'transfer', args: [FROM, TO, 1_000_000n] });
    const amount = op.body().invokeHostFunctionOp().hostFunction().invokeContract().args()[2];
    expect(amount.switch().name).toBe('scvI128');
  });

  it('reads what a spender may still pull', async () => {
    const simulate = jest
      .spyOn(ledger, 'simulateTransaction')
      .mockResolvedValue(returning(nativeToScVal(500n, { type: 'i128' })));
    await expect(token.allowance(FROM, TO)).resolves.toBe(500n);
    const built = xdr.TransactionEnvelope.fromXDR(simulate.mock.calls[0][0].toXDR(), 'base64').v1().tx();
    expect(invoked(built.operations()[0])).toEqual({ contract: TOKEN, fn: 'allowance', args: [FROM, TO] });
  });

  it('builds an approve invocation with an i128 amount and a u32 expiration ledger', () => {
    const op = token.approveInvocation(FROM, TO, 2_000n, 1234);
    expect(invoked(op)).toEqual({ contract: TOKEN, fn: 'approve', args: [FROM, TO, 2_000n, 1234] });
    const args = op.body().invokeHostFunctionOp().hostFunction().invokeContract().args();
    expect([args[2].switch().name, args[3].switch().name]).toEqual(['scvI128', 'scvU32']);
    expect(() => token.approveInvocation(FROM, TO, 1n, -1)).toThrow(RangeError);
    expect(() => token.approveInvocation(FROM, TO, -1n, 5)).toThrow(InvalidTokenAmountError);
  });

  it('rejects bad addresses and amounts', () => {
    expect(() => token.transferInvocation('GBAD', TO, 1n)).toThrow(InvalidAddressError);
    expect(() => new TokenClient(ledger, FROM)).toThrow(InvalidAddressError);
    expect(() => token.transferInvocation(FROM, TO, -1n)).toThrow(InvalidTokenAmountError);
    expect(() => token.transferInvocation(FROM, TO, 1.5 as unknown as bigint)).toThrow(InvalidTokenAmountError);
    expect(() => token.transferInvocation(FROM, TO, 100 as unknown as bigint)).toThrow(InvalidTokenAmountError);
    expect(() => assertTokenAmount(1n << 127n)).toThrow(InvalidTokenAmountError);
    expect(() => assertTokenAmount(0n)).not.toThrow();
  });
});
