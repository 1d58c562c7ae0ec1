import { xdr } from '@stellar/stellar-sdk';

type HostErrorType = 'Contract' | 'WasmVm' | 'Auth' | 'Storage' | 'Value' | 'Context' | 'Budget';
type HostErrorCode = 'InvalidAction' | 'MissingValue' | 'ExistingValue' | 'InvalidInput' | 'ExceededLimit';

const CODE_XDR: Record<HostErrorCode, () => xdr.ScErrorCode> = {
  InvalidAction: () => xdr.ScErrorCode.scecInvalidAction(),
  MissingValue: () => xdr.ScErrorCode.scecMissingValue(),
  ExistingValue: () => xdr.ScErrorCode.scecExistingValue(),
  InvalidInput: () => xdr.ScErrorCode.scecInvalidInput(),
  ExceededLimit: () => xdr.ScErrorCode.scecExceededLimit(),
};

const TYPE_XDR: Record<Exclude<HostErrorType, 'Contract'>, (code: xdr.ScErrorCode) => xdr.ScError> = {
  WasmVm: (code) => xdr.ScError.sceWasmVm(code),
  Auth: (code) => xdr.ScError.sceAuth(code),
  Storage: (code) => xdr.ScError.sceStorage(code),
  Value: (code) => xdr.ScError.sceValue(code),
  Context: (code) => xdr.ScError.sceContext(code),
  Budget: (code) => xdr.ScError.sceBudget(code),
};

/**
 * An error that aborts a Soroban invocation, rendered the way the real host renders it
 * (`Error(Contract, #1205)`, `Error(Auth, InvalidAction)`), with the diagnostic message beside it.
 */
export class HostError extends Error {
  private constructor(
    readonly type: HostErrorType,
    readonly code: number | HostErrorCode,
    readonly detail: string,
    readonly contract: string | undefined,
  ) {
    super(`Error(${type}, ${typeof code === 'number' ? `#${code}` : code})`);
    this.name = 'HostError';
  }

  static contract(code: number, contract: string, detail = 'contract error'): HostError {
    return new HostError('Contract', code, detail, contract);
  }

  static of(
    type: Exclude<HostErrorType, 'Contract'>,
    code: HostErrorCode,
    detail: string,
    contract?: string,
  ): HostError {
    return new HostError(type, code, detail, contract);
  }

  /** What `simulateTransaction` answers in `error`: the real host's first line, then the event log. */
  get simulationText(): string {
    return `HostError: ${this.message}\n\nEvent log (newest first):\n   0: [Diagnostic Event] topics:[error, ${this.message}], data:"${this.detail}"`;
  }

  toScError(): xdr.ScError {
    if (this.type === 'Contract') return xdr.ScError.sceContract(this.code as number);
    return TYPE_XDR[this.type](CODE_XDR[this.code as HostErrorCode]());
  }
}

/** Anything thrown inside an invocation becomes a host error; our own bugs surface as Context/InvalidAction. */
export function asHostError(error: unknown, contract?: string): HostError {
  if (error instanceof HostError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return HostError.of('Context', 'InvalidAction', `host failure: ${detail}`, contract);
}
