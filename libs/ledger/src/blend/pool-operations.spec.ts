import { Address, StrKey, scValToNative, type xdr } from '@stellar/stellar-sdk';
import { decodeFlashLoan, decodeRequest, REQUEST_TYPES } from './layouts';
import { networkPassphrase } from '../network/ledger-network';
import { buildInvocation } from '../transactions/build-invocation';
import { readInvocation } from '../transactions/invocation-reader';
import {
  poolFlashLoanOperation,
  poolRequestsOf,
  poolSubmitOperation,
  poolSubmitWithAllowanceOperation,
} from './pool-operations';

const POOL = StrKey.encodeContract(Buffer.alloc(32, 1));
const USDC = StrKey.encodeContract(Buffer.alloc(32, 2));
const XLM = StrKey.encodeContract(Buffer.alloc(32, 3));
const RECEIVER = StrKey.encodeContract(Buffer.alloc(32, 4));
const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';

function invocation(op: xdr.Operation) {
  const call = op.body().invokeHostFunctionOp().hostFunction().invokeContract();
  return {
    contract: Address.fromScAddress(call.contractAddress()).toString(),
    fn: call.functionName().toString(),
    args: call.args(),
  };
}

const repay = { requestType: REQUEST_TYPES.Repay, address: USDC, amount: 1_005_0000000n };
const withdraw = { requestType: REQUEST_TYPES.WithdrawCollateral, address: XLM, amount: 10_050_0000000n };

describe('pool operations', () => {
  it('read back from a built envelope: function, source, time bound, requests and loan', () => {
    const loan = { contract: RECEIVER, asset: XLM, amount: 1n };
    const tx = buildInvocation({
      op: poolFlashLoanOperation(POOL, WALLET, loan, [repay]),
      source: WALLET,
      sequence: '7',
      validUntil: 1_900_000_000,
      network: 'ledger:testnet',
    });
    const invocation = readInvocation(tx.toXDR(), networkPassphrase('ledger:testnet'));
    expect(invocation).toMatchObject({ source: WALLET, contract: POOL, fn: 'flash_loan', maxTime: 1_900_000_000 });
    expect(poolRequestsOf(invocation!)).toEqual({ requests: [repay], flashLoan: loan });
    expect(poolRequestsOf({ ...invocation!, fn: 'get_config', args: [] })).toEqual({ requests: [] });
  });

  it('submit: the wallet as from, spender and to, the requests as the pool decodes them', () => {
    const { contract, fn, args } = invocation(poolSubmitOperation(POOL, WALLET, [repay, withdraw]));
    expect([contract, fn]).toEqual([POOL, 'submit']);
    expect(args.slice(0, 3).map((arg) => scValToNative(arg))).toEqual([WALLET, WALLET, WALLET]);
    expect((args[3].vec() ?? []).map(decodeRequest)).toEqual([repay, withdraw]);
  });

  it('submit_with_allowance: the same arguments', () => {
    const { fn, args } = invocation(poolSubmitWithAllowanceOperation(POOL, WALLET, [repay]));
    expect(fn).toBe('submit_with_allowance');
    expect((args[3].vec() ?? []).map(decodeRequest)).toEqual([repay]);
  });

  it('flash_loan: the wallet, the loan through the receiver, then the requests', () => {
    const loan = { contract: RECEIVER, asset: XLM, amount: 6_400_0000000n };
    const { fn, args } = invocation(poolFlashLoanOperation(POOL, WALLET, loan, [repay, withdraw]));
    expect(fn).toBe('flash_loan');
    expect(scValToNative(args[0])).toBe(WALLET);
    expect(decodeFlashLoan(args[1])).toEqual(loan);
    expect((args[2].vec() ?? []).map(decodeRequest)).toEqual([repay, withdraw]);
  });
});
