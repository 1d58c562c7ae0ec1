import type { CloseSource } from '../store/agent-store';

/** A close transaction as built (unsigned), by the service's txb, by the agent itself, or by the mock. */
export interface BuiltClose {
  readonly unsignedXdr: string;
  /** `approve` when the wallet must first approve the pool (the close is built again once it has landed). */
  readonly route: string;
  readonly builtBy: CloseSource;
  /** txb's proposal (service builds): only those can go through `/txb/submit`. */
  readonly proposalId?: string;
}

/** The close cannot be built now (no position, target already reached, no route...). */
export class CloseRefusedError extends Error {
  override readonly name = 'CloseRefusedError';

  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}
