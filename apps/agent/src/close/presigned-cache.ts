import { type CloseSigningContext, type SignedAhead, cappedInclusionFee, inclusionFeeOf, resourceFeeOf } from '@rp/ledger';
import type { CloseSource } from '../store/agent-store';

/** A presigned close of one pool and what it was built against. */
export interface PresignedClose {
  readonly poolAddress: string;
  readonly signed: SignedAhead;
  readonly builtBy: CloseSource;
  readonly builtAt: number;
  /** The position and prices it was built against: a change beyond the tolerances means building it again. */
  readonly healthFactor: number | null;
  /** Asset -> price (decimal string) it was built at. */
  readonly prices: Record<string, string>;
  /** What the signing rule checked it against when it was signed: checked again, without I/O, before it is sent. */
  readonly rule?: CloseSigningContext;
}

/** Relative health factor change that makes a presigned close stale (the position or prices moved). */
export const HEALTH_FACTOR_TOLERANCE = 0.002;

export interface Freshness {
  /** The account's current sequence number: the close must use the next one. */
  readonly accountSequence: string | undefined;
  readonly healthFactor: number | null;
  /** The pool's prices now (asset -> decimal string): any change means building the close again. */
  readonly prices: Record<string, string>;
  /** Unix seconds now. */
  readonly nowSeconds: number;
  /** Rebuild when fewer seconds than this remain before the time bound. */
  readonly marginSeconds: number;
  /** What the network asks now (absent in mock mode: no fee check). */
  readonly networkFee?: NetworkFee;
}

/** The inclusion fee the network asks now and `MAX_CLOSE_FEE_STROOPS`. */
export interface NetworkFee {
  readonly ask: bigint;
  readonly maxTotalFee: bigint;
}

/** Whether a presigned close bids less than a close with its resources would be offered at now (capped). */
export function underpriced(envelope: string, fee: NetworkFee): boolean {
  return inclusionFeeOf(envelope) < cappedInclusionFee(fee.ask, resourceFeeOf(envelope), fee.maxTotalFee);
}

/** Why a presigned close must be built again, or undefined when it is still good. */
export function stalenessOf(entry: PresignedClose | undefined, now: Freshness): string | undefined {
  if (!entry) return 'none';
  if (now.accountSequence !== undefined && BigInt(entry.signed.sequence) !== BigInt(now.accountSequence) + 1n) {
    return 'sequence';
  }
  if (entry.signed.validUntil - now.nowSeconds < now.marginSeconds) return 'time bounds';
  if (now.networkFee && entry.builtBy !== 'mock' && underpriced(entry.signed.envelope, now.networkFee)) return 'fee';
  if (JSON.stringify(entry.prices) !== JSON.stringify(now.prices)) return 'prices';
  const before = entry.healthFactor;
  const after = now.healthFactor;
  if ((before === null) !== (after === null)) return 'position';
  if (before !== null && after !== null && Math.abs(after - before) / before > HEALTH_FACTOR_TOLERANCE) {
    return 'position';
  }
  return undefined;
}

/** Usable to send now: the right sequence number and still inside its time bounds. */
export function sendable(entry: PresignedClose | undefined, accountSequence: string | undefined, nowSeconds: number) {
  if (!entry) return false;
  if (accountSequence !== undefined && BigInt(entry.signed.sequence) !== BigInt(accountSequence) + 1n) return false;
  return entry.signed.validUntil - nowSeconds > 2;
}

export class PresignedCache {
  private readonly entries = new Map<string, PresignedClose>();

  get(pool: string): PresignedClose | undefined {
    return this.entries.get(pool);
  }

  set(entry: PresignedClose): void {
    this.entries.set(entry.poolAddress, entry);
  }

  drop(pool: string): void {
    this.entries.delete(pool);
  }

  /** Keeps only the pools still at `high` or worse. */
  retain(pools: ReadonlySet<string>): void {
    for (const pool of [...this.entries.keys()]) if (!pools.has(pool)) this.entries.delete(pool);
  }

  clear(): void {
    this.entries.clear();
  }

  all(): PresignedClose[] {
    return [...this.entries.values()];
  }
}

/** Share of the slippage a price may use up before a presigned close is not worth sending (its swap would fail). */
const SLIPPAGE_USE = 0.8;

/**
 * Whether a price moved since the close was signed by more than it can absorb: a close that sells collateral
 * through the flash loan pays the debt only while the sale stays within `slippageBps`. Sending it anyway would cost
 * a ledger to learn it failed; building it again costs less.
 */
export function movedBeyondSlippage(
  signedAt: Record<string, string>,
  now: Record<string, string>,
  slippageBps: number,
): boolean {
  return Object.entries(signedAt).some(([asset, price]) => {
    const before = Number(price);
    const after = Number(now[asset] ?? price);
    return before > 0 && (Math.abs(after - before) / before) * 10_000 > slippageBps * SLIPPAGE_USE;
  });
}
