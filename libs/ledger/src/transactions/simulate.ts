import { type FeeBumpTransaction, type Transaction, rpc } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { decodeContractError } from './contract-errors';

/** Simulation refused the invocation; `code`/`name` identify the contract error when there is one. */
export class SimulationFailedError extends Error {
  override readonly name = 'SimulationFailedError';
  readonly code?: number;
  readonly errorName?: string;

  constructor(
    /** The host's full error text, event log included: for logs, not for end users. */
    readonly hostError: string,
    events: rpc.Api.SimulateTransactionErrorResponse['events'],
  ) {
    const decoded = decodeContractError(hostError) ?? decodeContractError(events);
    const headline = hostError.split('\n', 1)[0].slice(0, 200);
    super(`simulation failed: ${headline}${decoded?.name ? ` (${decoded.name})` : ''}`);
    this.code = decoded?.code;
    this.errorName = decoded?.name;
  }
}

export type SimulationResult = rpc.Api.SimulateTransactionSuccessResponse | rpc.Api.SimulateTransactionRestoreResponse;

/** Simulates `tx`; a failed simulation becomes `SimulationFailedError` instead of a value to check. */
export async function simulate(ledger: LedgerRpc, tx: Transaction | FeeBumpTransaction): Promise<SimulationResult> {
  const simulation = await ledger.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(simulation)) throw new SimulationFailedError(simulation.error, simulation.events);
  return simulation;
}

/** The transaction with the simulation's footprint, resource fee and auth entries, ready to sign. */
export function assemble(tx: Transaction, simulation: rpc.Api.SimulateTransactionResponse): Transaction {
  if (rpc.Api.isSimulationError(simulation)) throw new SimulationFailedError(simulation.error, simulation.events);
  return rpc.assembleTransaction(tx, simulation).build();
}
