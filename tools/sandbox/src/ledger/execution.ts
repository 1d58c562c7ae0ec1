import { Address, SorobanDataBuilder, xdr } from '@stellar/stellar-sdk';
import { declaredResources, instructionsFor, resourceFeeFor } from './fees';
import { AuthorizationManager } from './host/authorization';
import { HostError, asHostError } from './host/host-error';
import { HostInvocation } from './host/invocation';
import type { NativeContractKind } from './host/native-contract';
import type { EntryChange, EntryKey, StateOverlay } from './state/ledger-state';

export interface ExecutionSettings {
  readonly networkId: Buffer;
  readonly sequence: number;
  readonly timestamp: bigint;
  readonly kinds: ReadonlyMap<string, NativeContractKind>;
  readonly sourceAccount: string | undefined;
}

export interface Execution {
  readonly returnValue?: xdr.ScVal;
  readonly events: readonly xdr.ContractEvent[];
  readonly error?: HostError;
  /** Authorization entries: the ones given, or the ones recorded when none were. */
  readonly auth: readonly xdr.SorobanAuthorizationEntry[];
  readonly readOnly: readonly EntryKey[];
  readonly readWrite: readonly EntryKey[];
  /** Entries the invocation changed, before and after (for `stateChanges`). */
  readonly changes: readonly EntryChange[];
  readonly instructions: number;
  readonly diskReadBytes: number;
  readonly writeBytes: number;
}

/** Runs one `invokeContract` host function against an overlay; never throws for contract or host failures. */
export function executeHostFunction(
  overlay: StateOverlay,
  hostFunction: xdr.HostFunction,
  givenAuth: readonly xdr.SorobanAuthorizationEntry[],
  settings: ExecutionSettings,
  mode: 'transaction' | 'privileged' = 'transaction',
): Execution {
  const auth =
    mode === 'privileged'
      ? AuthorizationManager.privileged()
      : givenAuth.length > 0
        ? AuthorizationManager.enforcing(givenAuth)
        : AuthorizationManager.recording();
  const context = { ...settings, state: overlay, ledgerSequence: settings.sequence, auth };
  const invocation = new HostInvocation(context);
  let returnValue: xdr.ScVal | undefined;
  let error: HostError | undefined;
  try {
    if (hostFunction.switch().name !== 'hostFunctionTypeInvokeContract') {
      throw HostError.of('Value', 'InvalidInput', 'only contract invocations are supported by the sandbox');
    }
    const call = hostFunction.invokeContract();
    const contract = Address.fromScAddress(call.contractAddress()).toString();
    returnValue = invocation.invoke(contract, call.functionName().toString(), call.args());
  } catch (caught) {
    error = asHostError(caught);
  }
  const recordedNonces = auth.isRecording ? auth.recordedNonceKeys(settings) : [];
  const footprint = overlay.footprint();
  const readWrite = [...new Set([...footprint.readWrite, ...recordedNonces])];
  const readOnly = footprint.readOnly.filter((key) => !readWrite.includes(key));
  const sizeOf = (keys: readonly EntryKey[]) =>
    keys.reduce((total, key) => total + (overlay.get(key)?.data.toXDR().length ?? 0), 0);
  return {
    returnValue,
    events: error ? [] : invocation.events,
    error,
    auth: auth.isRecording ? auth.recordedEntries(settings) : givenAuth,
    readOnly,
    readWrite,
    changes: error ? [] : overlay.changes(),
    instructions: instructionsFor(invocation.calls),
    diskReadBytes: sizeOf(readOnly) + sizeOf(readWrite),
    writeBytes: sizeOf(readWrite),
  };
}

/** The Soroban data a simulation hands back for the client to attach: footprint, resources and their fee. */
export function sorobanDataFor(execution: Execution): xdr.SorobanTransactionData {
  const toKeys = (keys: readonly EntryKey[]) => keys.map((key) => xdr.LedgerKey.fromXDR(key, 'base64'));
  const draft = new SorobanDataBuilder()
    .setFootprint(toKeys(execution.readOnly), toKeys(execution.readWrite))
    .setResources(execution.instructions, execution.diskReadBytes, execution.writeBytes)
    .build();
  return new SorobanDataBuilder(draft).setResourceFee(resourceFeeFor(declaredResources(draft)).toString()).build();
}

/**
 * What the network checks after applying: every entry touched is in the declared footprint (writes in its
 * read-write part) and the instructions used fit the declared budget.
 */
export function checkDeclaredResources(
  execution: Execution,
  declared: xdr.SorobanTransactionData,
): HostError | undefined {
  const footprint = declared.resources().footprint();
  const readWrite = new Set(footprint.readWrite().map((key) => key.toXDR('base64')));
  const readOnly = new Set(footprint.readOnly().map((key) => key.toXDR('base64')));
  const outside = execution.readWrite.find((key) => !readWrite.has(key));
  if (outside) return HostError.of('Storage', 'ExceededLimit', 'trying to write an entry outside the footprint');
  const unread = execution.readOnly.find((key) => !readOnly.has(key) && !readWrite.has(key));
  if (unread) return HostError.of('Storage', 'ExceededLimit', 'trying to access an entry outside the footprint');
  if (execution.instructions > declared.resources().instructions()) {
    return HostError.of('Budget', 'ExceededLimit', 'instruction budget exceeded');
  }
  return undefined;
}
