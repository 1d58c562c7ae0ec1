import { PoolContractV2, type Request as SdkRequest, type RequestType } from '@blend-capital/blend-sdk';
import { xdr } from '@stellar/stellar-sdk';
import type { InvocationContent } from '../transactions/invocation-reader';
import { type FlashLoan, type Request, decodeFlashLoan, decodeRequest } from './layouts';

/**
 * The pool invocations a wallet signs, built with the blend-sdk's own contract client (ADR 006): the same
 * argument encoding the Blend UI sends. Each is the one `invokeHostFunction` operation of a Soroban transaction.
 */

const sdkRequests = (requests: readonly Request[]): SdkRequest[] =>
  requests.map((request) => ({
    request_type: request.requestType as RequestType,
    address: request.address,
    amount: request.amount,
  }));

/**
 * `submit(from, from, from, requests)`: the wallet pays what the requests take and receives what they give, each
 * token moved on its own (not netted), so the wallet must hold every amount it pays in.
 */
export function poolSubmitOperation(pool: string, from: string, requests: readonly Request[]): xdr.Operation {
  const operation = new PoolContractV2(pool).submit({ from, spender: from, to: from, requests: sdkRequests(requests) });
  return xdr.Operation.fromXDR(operation, 'base64');
}

/**
 * `submit_with_allowance(from, from, from, requests)`: transfers netted per token; what the wallet owes on balance
 * is pulled with `transfer_from`, so it needs the wallet's allowance for the pool.
 */
export function poolSubmitWithAllowanceOperation(
  pool: string,
  from: string,
  requests: readonly Request[],
): xdr.Operation {
  const operation = new PoolContractV2(pool).submitWithAllowance({
    from,
    spender: from,
    to: from,
    requests: sdkRequests(requests),
  });
  return xdr.Operation.fromXDR(operation, 'base64');
}

/**
 * `flash_loan(from, {contract, asset, amount}, requests)`: the pool lends `amount` of `asset` to `from` (as debt),
 * applies the requests, checks health, sends the loan to the receiver contract and calls its `exec_op`, then nets
 * the requests' transfers per token, pulling what `from` owes with `transfer_from`.
 */
export function poolFlashLoanOperation(
  pool: string,
  from: string,
  flashLoan: FlashLoan,
  requests: readonly Request[],
): xdr.Operation {
  const operation = new PoolContractV2(pool).flashLoan({
    from,
    flash_loan: { contract: flashLoan.contract, asset: flashLoan.asset, amount: flashLoan.amount },
    requests: sdkRequests(requests),
  });
  return xdr.Operation.fromXDR(operation, 'base64');
}

/** The requests (and flash loan) of a pool invocation read back with `readInvocation`; empty for other calls. */
export function poolRequestsOf(invocation: InvocationContent): { requests: Request[]; flashLoan?: FlashLoan } {
  const { fn, args } = invocation;
  if (fn === 'flash_loan' && args.length === 3) {
    return { requests: (args[2].vec() ?? []).map(decodeRequest), flashLoan: decodeFlashLoan(args[1]) };
  }
  if ((fn === 'submit' || fn === 'submit_with_allowance') && args.length === 4) {
    return { requests: (args[3].vec() ?? []).map(decodeRequest) };
  }
  return { requests: [] };
}
