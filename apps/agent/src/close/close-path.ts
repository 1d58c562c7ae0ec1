import type { CloseSigningContext, SignedAhead } from '@rp/ledger';
import type { CloseSource, RiskSnapshot } from '../store/agent-store';

export interface Decision {
  readonly poolAddress: string;
  readonly snapshot: RiskSnapshot;
  /** The account's sequence number when the decision was taken. */
  readonly accountSequence: string | undefined;
  /** A liquidation auction runs against the wallet in the pool: rescue it (ADR 027), unwind if that cannot be. */
  readonly rescue?: boolean;
}

/** A close signed ahead, who built it, and what the signing rule checked it against (absent for the mock's). */
export interface SignedClose {
  readonly signed: SignedAhead;
  readonly builtBy: CloseSource;
  readonly rule?: CloseSigningContext;
}

/**
 * How a decision becomes a close, chosen once at start: sent to the network and followed (`SentCloses`), or played
 * (`PlayedCloses`, `SERVICE_MOCK`: recorded, never sent).
 */
export interface ClosePath {
  /** Builds and signs the close of a pool (kept ahead in the presigned cache). */
  buildSigned(pool: string, accountSequence: string | undefined): Promise<SignedClose>;
  /** Carries out one decision: true once the position is closed (or nothing is left to close). */
  carryOut(decision: Decision, decidedAtMs: number): Promise<boolean>;
  /** Follows the closes an earlier run left pending, except those of pools `busy` now. */
  resume(busy: (pool: string) => boolean): Promise<void>;
  stop(): void;
}
