import { hash, xdr } from '@stellar/stellar-sdk';
import { toLedgerEntry } from '../state/entries';
import type { EntryChange } from '../state/ledger-state';
import type { HostError } from '../host/host-error';
import type { ParsedEnvelope, RejectionCode } from './envelope';

/** XDR builders for what the network reports about a transaction: its result and its meta. */

const RESULT_EXT = () => new xdr.TransactionResultExt(0);

export function rejectionResult(code: RejectionCode, feeCharged = 0n): xdr.TransactionResult {
  const result = (xdr.TransactionResultResult as unknown as Record<string, () => xdr.TransactionResultResult>)[code]();
  return new xdr.TransactionResult({ feeCharged: int64(feeCharged), result, ext: RESULT_EXT() });
}

export interface InvocationOutcome {
  readonly returnValue?: xdr.ScVal;
  readonly events: readonly xdr.ContractEvent[];
  readonly error?: HostError;
}

/** The result of an applied Soroban transaction: success with the hash of its return value and events, or trapped. */
export function appliedResult(
  parsed: ParsedEnvelope,
  feeCharged: bigint,
  outcome: InvocationOutcome,
): xdr.TransactionResult {
  const operation = outcome.error
    ? xdr.InvokeHostFunctionResult.invokeHostFunctionTrapped()
    : xdr.InvokeHostFunctionResult.invokeHostFunctionSuccess(
        hash(
          new xdr.InvokeHostFunctionSuccessPreImage({
            returnValue: outcome.returnValue ?? xdr.ScVal.scvVoid(),
            events: [...outcome.events],
          }).toXDR(),
        ),
      );
  const operationResults = [xdr.OperationResult.opInner(xdr.OperationResultTr.invokeHostFunction(operation))];
  if (parsed.envelope === parsed.inner) {
    const result = outcome.error
      ? xdr.TransactionResultResult.txFailed(operationResults)
      : xdr.TransactionResultResult.txSuccess(operationResults);
    return new xdr.TransactionResult({ feeCharged: int64(feeCharged), result, ext: RESULT_EXT() });
  }
  const innerResult = new xdr.InnerTransactionResult({
    feeCharged: int64(0n),
    result: outcome.error
      ? xdr.InnerTransactionResultResult.txFailed(operationResults)
      : xdr.InnerTransactionResultResult.txSuccess(operationResults),
    ext: new xdr.InnerTransactionResultExt(0),
  });
  const pair = new xdr.InnerTransactionResultPair({
    transactionHash: Buffer.from(parsed.innerHash, 'hex'),
    result: innerResult,
  });
  const result = outcome.error
    ? xdr.TransactionResultResult.txFeeBumpInnerFailed(pair)
    : xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair);
  return new xdr.TransactionResult({ feeCharged: int64(feeCharged), result, ext: RESULT_EXT() });
}

/** TransactionMeta v4 (protocol 23): fee and sequence changes before, the operation's changes and events. */
export function transactionMeta(
  before: readonly EntryChange[],
  operationChanges: readonly EntryChange[],
  outcome: InvocationOutcome,
  diagnostics: readonly xdr.DiagnosticEvent[],
): xdr.TransactionMeta {
  return new xdr.TransactionMeta(
    4,
    new xdr.TransactionMetaV4({
      ext: new xdr.ExtensionPoint(0),
      txChangesBefore: entryChanges(before),
      operations: [
        new xdr.OperationMetaV2({
          ext: new xdr.ExtensionPoint(0),
          changes: entryChanges(operationChanges),
          events: outcome.error ? [] : [...outcome.events],
        }),
      ],
      txChangesAfter: [],
      sorobanMeta: new xdr.SorobanTransactionMetaV2({
        ext: new xdr.SorobanTransactionMetaExt(0),
        returnValue: outcome.error ? null : (outcome.returnValue ?? xdr.ScVal.scvVoid()),
      }),
      events: [],
      diagnosticEvents: [...diagnostics],
    }),
  );
}

/** The diagnostic event a failing invocation leaves: topics `[error, Error(..)]`, data the host's message. */
export function errorDiagnostic(error: HostError, contractId?: xdr.Hash): xdr.DiagnosticEvent {
  return new xdr.DiagnosticEvent({
    inSuccessfulContractCall: false,
    event: new xdr.ContractEvent({
      ext: new xdr.ExtensionPoint(0),
      contractId: (contractId ?? null) as xdr.Hash | null,
      type: xdr.ContractEventType.diagnostic(),
      body: new xdr.ContractEventBody(
        0,
        new xdr.ContractEventV0({
          topics: [xdr.ScVal.scvSymbol('error'), xdr.ScVal.scvError(error.toScError())],
          data: xdr.ScVal.scvString(error.detail),
        }),
      ),
    }),
  });
}

export function asDiagnostic(event: xdr.ContractEvent): xdr.DiagnosticEvent {
  return new xdr.DiagnosticEvent({ inSuccessfulContractCall: true, event });
}

function entryChanges(changes: readonly EntryChange[]): xdr.LedgerEntryChange[] {
  return changes.flatMap(({ before, after, key }) => {
    if (!before && after) return [xdr.LedgerEntryChange.ledgerEntryCreated(toLedgerEntry(after))];
    if (before && !after) {
      return [
        xdr.LedgerEntryChange.ledgerEntryState(toLedgerEntry(before)),
        xdr.LedgerEntryChange.ledgerEntryRemoved(xdr.LedgerKey.fromXDR(key, 'base64')),
      ];
    }
    if (before && after) {
      return [
        xdr.LedgerEntryChange.ledgerEntryState(toLedgerEntry(before)),
        xdr.LedgerEntryChange.ledgerEntryUpdated(toLedgerEntry(after)),
      ];
    }
    return [];
  });
}

function int64(value: bigint): xdr.Int64 {
  return xdr.Int64.fromString(value.toString());
}
