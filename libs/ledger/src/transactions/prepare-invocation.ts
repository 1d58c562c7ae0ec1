import type { LedgerNetwork } from '@rp/contracts';
import type { xdr } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import type { AccountState } from './accounts';
import type { ContractErrorNames } from './contract-errors';
import { buildInvocation } from './build-invocation';
import { assemble, simulateForAssembly } from './simulate';

/** One contract invocation, the operation of a Soroban transaction. */
export type InvocationOperation = xdr.Operation;

export interface PreparedInvocation {
  /** Unsigned `TransactionEnvelope`, base64, with the simulation's footprint, resource fee and authorization. */
  readonly transactionXdr: string;
  /** The network hash (hex); the signed copy has the same one. */
  readonly hash: string;
  /** What the invocation returned in simulation (a pool call returns the positions it leaves). */
  readonly returnValue?: xdr.ScVal;
}

export interface InvocationToPrepare {
  readonly source: AccountState;
  readonly operation: InvocationOperation;
  /** The last moment the transaction may be included (its time bounds end here). */
  readonly validUntil: Date;
  readonly network: LedgerNetwork;
  /** Error names of the invoked contract, to name a refused simulation's code. */
  readonly errorNames?: ContractErrorNames;
  /** Inclusion fee in stroops (the simulation's resource fee is added on top); default the network minimum. */
  readonly inclusionFee?: bigint;
}

/**
 * The transaction a wallet signs for one invocation: the wallet as source at its next sequence number, time bounds
 * ending at `validUntil`, simulated and assembled. A refused simulation throws `SimulationFailedError`.
 */
export async function prepareInvocation(rpc: LedgerRpc, request: InvocationToPrepare): Promise<PreparedInvocation> {
  const draft = buildInvocation({
    op: request.operation,
    source: request.source.address,
    sequence: request.source.sequence,
    validUntil: request.validUntil,
    network: request.network,
    ...(request.inclusionFee !== undefined && { fee: request.inclusionFee.toString() }),
  });
  const simulation = await simulateForAssembly(rpc, draft, request.errorNames);
  const transaction = assemble(draft, simulation);
  return {
    transactionXdr: transaction.toXDR(),
    hash: transaction.hash().toString('hex'),
    returnValue: simulation.result?.retval,
  };
}
