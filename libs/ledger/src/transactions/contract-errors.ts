import { xdr } from '@stellar/stellar-sdk';

export interface ContractErrorInfo {
  /** The `#[contracterror]` code, e.g. 1205. */
  code: number;
  /** Its name in the names the caller passed for the contract it invoked (Blend pool: 1205 -> InvalidHf). */
  name?: string;
}

/**
 * A contract's error names by code (`#[contracterror]`): codes mean something only for the contract that raised
 * them, so whoever invokes a contract passes its names (`TOKEN_CONTRACT_ERRORS`, `BLEND_POOL_CALL_ERRORS`).
 */
export type ContractErrorNames = Readonly<Record<number, string>>;

// Host errors print as `Error(Contract, #1205)`; the first one in the text is the one the invocation failed with.
const CONTRACT_ERROR = /Error\(Contract, #(\d+)\)/;

/**
 * Finds the contract error code in a simulation error string (`HostError: Error(Contract, #1205)\n\nEvent log
 * ...`) or in diagnostic events (an `ScError` of type contract in a topic or in the data), named from `names`.
 */
export function decodeContractError(
  source: string | readonly (xdr.DiagnosticEvent | string)[] | undefined,
  names?: ContractErrorNames,
): ContractErrorInfo | undefined {
  if (source === undefined) return undefined;
  const code = typeof source === 'string' ? codeInText(source) : codeInEvents(source);
  return code === undefined ? undefined : { code, name: names?.[code] };
}

function codeInText(text: string): number | undefined {
  const match = CONTRACT_ERROR.exec(text);
  return match ? Number(match[1]) : undefined;
}

function codeInEvents(events: readonly (xdr.DiagnosticEvent | string)[]): number | undefined {
  for (const item of events) {
    const event = typeof item === 'string' ? xdr.DiagnosticEvent.fromXDR(item, 'base64') : item;
    const body = event.event().body().v0();
    for (const value of [...body.topics(), body.data()]) {
      const code = codeInScVal(value, 0);
      if (code !== undefined) return code;
    }
  }
  return undefined;
}

function codeInScVal(value: xdr.ScVal, depth: number): number | undefined {
  if (depth > 8) return undefined;
  switch (value.switch().value) {
    case xdr.ScValType.scvError().value: {
      const error = value.error();
      return error.switch().value === xdr.ScErrorType.sceContract().value ? error.contractCode() : undefined;
    }
    case xdr.ScValType.scvVec().value:
      return firstCode(value.vec() ?? [], depth);
    case xdr.ScValType.scvMap().value:
      return firstCode(
        (value.map() ?? []).flatMap((entry) => [entry.key(), entry.val()]),
        depth,
      );
    default:
      return undefined;
  }
}

function firstCode(values: xdr.ScVal[], depth: number): number | undefined {
  for (const value of values) {
    const code = codeInScVal(value, depth + 1);
    if (code !== undefined) return code;
  }
  return undefined;
}
