import { Account, BASE_FEE, Contract, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { simulate } from './simulate';

/** Simulation needs a well-formed source, not an existing one: the all-zero ed25519 key. */
export const SIMULATION_SOURCE = 'GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF';

/** A read-only contract call answered with no value (a function that returns nothing was asked for a value). */
export class EmptyReadError extends Error {
  override readonly name = 'EmptyReadError';

  constructor(
    readonly contractId: string,
    readonly fn: string,
  ) {
    super(`${fn} of ${contractId} returned no value`);
  }
}

/**
 * Calls a contract's read-only function by simulation (no fee, no signature, nothing submitted) and returns its
 * value. A contract error comes back as `SimulationFailedError`, with its code.
 */
export async function readContract(
  rpc: LedgerRpc,
  contractId: string,
  fn: string,
  args: readonly xdr.ScVal[] = [],
  source: string = SIMULATION_SOURCE,
): Promise<xdr.ScVal> {
  const tx = new TransactionBuilder(new Account(source, '0'), {
    fee: BASE_FEE,
    networkPassphrase: await rpc.networkPassphrase(),
  })
    .addOperation(new Contract(contractId).call(fn, ...args))
    .setTimeout(0)
    .build();
  const retval = (await simulate(rpc, tx)).result?.retval;
  if (!retval) throw new EmptyReadError(contractId, fn);
  return retval;
}
