import { type FeeBumpTransaction, SorobanDataBuilder, type Transaction, rpc, xdr } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { type ContractErrorNames, decodeContractError } from './contract-errors';

/** Simulation refused the invocation; `code`/`name` identify the contract error when there is one. */
export class SimulationFailedError extends Error {
  override readonly name = 'SimulationFailedError';
  readonly code?: number;
  readonly errorName?: string;

  constructor(
    /** The host's full error text, event log included: for logs, not for end users. */
    readonly hostError: string,
    events: rpc.Api.SimulateTransactionErrorResponse['events'],
    /** The invoked contract's error names, to name the code. */
    names?: ContractErrorNames,
  ) {
    const decoded = decodeContractError(hostError, names) ?? decodeContractError(events, names);
    const headline = hostError.split('\n', 1)[0].slice(0, 200);
    super(`simulation failed: ${headline}${decoded?.name ? ` (${decoded.name})` : ''}`);
    this.code = decoded?.code;
    this.errorName = decoded?.name;
  }
}

export type SimulationResult = rpc.Api.SimulateTransactionSuccessResponse | rpc.Api.SimulateTransactionRestoreResponse;

/**
 * Simulates `tx`; a failed simulation becomes `SimulationFailedError` (its contract error named from `names`)
 * instead of a value to check.
 */
export async function simulate(
  ledger: LedgerRpc,
  tx: Transaction | FeeBumpTransaction,
  names?: ContractErrorNames,
): Promise<SimulationResult> {
  const simulation = await ledger.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(simulation)) {
    throw new SimulationFailedError(simulation.error, simulation.events, names);
  }
  return simulation;
}

/**
 * A simulation for assembling a transaction: decodes only what `assemble` and the caller need (resources, fee,
 * authorization, return value), not the events and state changes, which cost more to decode than all the rest
 * (about 1 ms of CPU for a Blend pool call). Refused, restoring or odd answers go through the SDK's full parser.
 */
export async function simulateForAssembly(
  ledger: LedgerRpc,
  tx: Transaction,
  names?: ContractErrorNames,
): Promise<SimulationResult> {
  const raw = await ledger.simulateTransactionRaw(tx);
  const result = raw.results?.[0];
  if (raw.error !== undefined || raw.restorePreamble || raw.transactionData === undefined || !result) {
    const parsed = rpc.parseRawSimulation(raw);
    if (rpc.Api.isSimulationError(parsed)) throw new SimulationFailedError(parsed.error, parsed.events, names);
    return parsed;
  }
  return {
    id: raw.id,
    latestLedger: raw.latestLedger,
    events: [],
    _parsed: true,
    transactionData: new SorobanDataBuilder(raw.transactionData),
    minResourceFee: raw.minResourceFee ?? '0',
    result: {
      auth: (result.auth ?? []).map((entry) => xdr.SorobanAuthorizationEntry.fromXDR(entry, 'base64')),
      retval: xdr.ScVal.fromXDR(result.xdr, 'base64'),
    },
  };
}

/** The transaction with the simulation's footprint, resource fee and auth entries, ready to sign. */
export function assemble(tx: Transaction, simulation: rpc.Api.SimulateTransactionResponse): Transaction {
  if (rpc.Api.isSimulationError(simulation)) throw new SimulationFailedError(simulation.error, simulation.events);
  return rpc.assembleTransaction(tx, simulation).build();
}
