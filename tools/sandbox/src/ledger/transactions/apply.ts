import { xdr } from '@stellar/stellar-sdk';
import { checkDeclaredResources, executeHostFunction, type ExecutionSettings } from '../execution';
import type { TransactionRecord } from '../ledger-history';
import { accountEntry, accountKey, readAccount, storedEntry } from '../state/entries';
import { StateOverlay, type LedgerState } from '../state/ledger-state';
import { feeCharged, inclusionFeeOf } from '../congestion/surge-pricing';
import type { ParsedEnvelope } from './envelope';
import { appliedResult, errorDiagnostic, transactionMeta } from './results';

export interface ApplySettings extends ExecutionSettings {
  readonly applicationOrder: number;
  /** The Soroban lane's base fee per operation in this ledger (surge pricing); the network minimum by default. */
  readonly baseFee?: bigint;
}

/**
 * Applies one validated transaction as the network does: the fee is charged and the sequence consumed whatever
 * happens next; then the invocation runs under enforced authorization and its declared footprint, and its
 * changes are kept only if it succeeds.
 */
export function applyTransaction(
  state: LedgerState,
  parsed: ParsedEnvelope,
  settings: ApplySettings,
): TransactionRecord {
  const fee = feeCharged(parsed, settings.baseFee);
  const before = new StateOverlay(state);
  const feeSource = readAccount(before, parsed.feeSource);
  if (!feeSource) throw new Error(`fee source ${parsed.feeSource} vanished after validation`);
  before.put(
    accountKey(parsed.feeSource),
    storedEntry(accountEntry({ ...feeSource, balance: feeSource.balance - fee }), settings.sequence),
  );
  const source = readAccount(before, parsed.inner.source);
  if (!source) throw new Error(`source ${parsed.inner.source} vanished after validation`);
  before.put(
    accountKey(parsed.inner.source),
    storedEntry(accountEntry({ ...source, sequence: BigInt(parsed.inner.sequence) }), settings.sequence),
  );
  const feeChanges = before.changes();
  before.commitTo(state);

  const operation = new StateOverlay(state);
  const hostFunction = parsed.hostFunction as xdr.HostFunction;
  const execution = executeHostFunction(operation, hostFunction, parsed.auth, settings);
  const error = execution.error ?? (parsed.sorobanData && checkDeclaredResources(execution, parsed.sorobanData));
  const outcome = {
    returnValue: execution.returnValue,
    events: error ? [] : execution.events,
    error: error || undefined,
  };
  const operationChanges = outcome.error ? [] : stamp(operation, settings.sequence);
  if (!outcome.error) operation.commitTo(state);

  const diagnostics = outcome.error ? [errorDiagnostic(outcome.error)] : [];
  const result = appliedResult(parsed, fee, outcome);
  return {
    hash: parsed.hash,
    status: outcome.error ? 'FAILED' : 'SUCCESS',
    ledger: settings.sequence,
    createdAt: settings.timestamp,
    applicationOrder: settings.applicationOrder,
    feeBump: parsed.envelope !== parsed.inner,
    envelopeXdr: parsed.envelope.toEnvelope().toXDR('base64'),
    resultXdr: result.toXDR('base64'),
    resultMetaXdr: transactionMeta(feeChanges, operationChanges, outcome, diagnostics).toXDR('base64'),
    diagnosticEventsXdr: diagnostics.map((event) => event.toXDR('base64')),
    contractEventsXdr: outcome.events.map((event) => event.toXDR('base64')),
    source: parsed.inner.source,
    feeCharged: fee,
    inclusionFeeCharged: inclusionFeeOf(parsed, fee),
    error: outcome.error?.message,
  };
}

/** Entries written by the operation carry the applying ledger as their last-modified sequence. */
function stamp(operation: StateOverlay, sequence: number) {
  const changes = operation.changes();
  for (const change of changes) {
    if (change.after) operation.put(change.key, { ...change.after, lastModified: sequence });
  }
  return operation.changes();
}
