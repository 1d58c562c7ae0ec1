import { Address, type Transaction, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';

/** What a one-invocation transaction asks for, read back from its envelope (to check it before signing). */
export interface InvocationContent {
  readonly source: string;
  /** Total fee in stroops (inclusion plus resources). */
  readonly fee: number;
  /** Unix seconds of the upper time bound (0: none). */
  readonly maxTime: number;
  /** Carries Soroban resources (footprint, instructions, resource fee) from a simulation. */
  readonly hasResources: boolean;
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/** Reads the contract invocation of a transaction envelope; `undefined` when it is not one invocation. */
export function readInvocation(transactionXdr: string, passphrase: string): InvocationContent | undefined {
  const tx = TransactionBuilder.fromXDR(transactionXdr, passphrase) as Transaction;
  const operation = tx.toEnvelope().v1().tx().operations()[0];
  if (tx.operations.length !== 1 || operation.body().switch().name !== 'invokeHostFunction') return undefined;
  const fn = operation.body().invokeHostFunctionOp().hostFunction();
  if (fn.switch().name !== 'hostFunctionTypeInvokeContract') return undefined;
  const call = fn.invokeContract();
  return {
    source: tx.source,
    fee: Number(tx.fee),
    maxTime: Number(tx.timeBounds?.maxTime ?? 0),
    hasResources: tx.toEnvelope().v1().tx().ext().switch() === 1,
    contract: Address.fromScAddress(call.contractAddress()).toString(),
    fn: call.functionName().toString(),
    args: call.args(),
  };
}
