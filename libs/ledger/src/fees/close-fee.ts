import { xdr } from '@stellar/stellar-sdk';

/** The network minimum inclusion fee per operation, in stroops (`BASE_FEE`). */
export const MIN_INCLUSION_FEE = 100n;

/**
 * The percentile of recent Soroban inclusion fees a close bids on. The fees `getFeeStats` reports are the ones
 * *charged*, and under surge pricing every included transaction is charged the lowest included bid: in a congested
 * window the high percentiles are the clearing price of the full ledgers. p95 follows that price once a few ledgers
 * are full, while p99 (the max of a small window) lets one outlier set every close's price.
 */
export const CLOSE_FEE_PERCENTILE = 'p95' as const;

/**
 * Margin over the percentile, in percent. A bid equal to the clearing price ties, and ties go by arrival (the
 * competing bids waiting since earlier ledgers win); 25% more wins the tie with room for the price rising between
 * the fee read and the ledger. A quiet network charges the minimum whatever the bid, so the margin then costs nothing.
 */
export const CLOSE_FEE_MARGIN_PERCENT = 25n;

/** The most a transaction's (32-bit) fee field holds, in stroops. */
export const MAX_TRANSACTION_FEE = 0xffffffffn;

/** The part of a `getFeeStats` answer the choice reads (`rpc.Api.GetFeeStatsResponse['sorobanInclusionFee']`). */
export interface InclusionFeeDistribution {
  readonly p95: string;
  readonly transactionCount: string;
}

const stroops = (value: string | undefined): bigint | undefined => {
  if (value === undefined || !/^\d{1,19}$/.test(value)) return undefined;
  return BigInt(value);
};

/**
 * The inclusion fee the network asks of a close now: p95 of recent Soroban inclusion fees plus 25%, never below
 * the minimum. No Soroban transaction in the window (every field zero) or a malformed answer: the minimum.
 */
export function networkInclusionFee(distribution: InclusionFeeDistribution | undefined): bigint {
  const count = stroops(distribution?.transactionCount);
  const percentile = stroops(distribution?.[CLOSE_FEE_PERCENTILE]);
  if (!count || percentile === undefined) return MIN_INCLUSION_FEE;
  const bid = (percentile * (100n + CLOSE_FEE_MARGIN_PERCENT) + 99n) / 100n;
  return bid > MIN_INCLUSION_FEE ? bid : MIN_INCLUSION_FEE;
}

/**
 * The inclusion fee a close is offered at: the network's ask, lowered so the total (inclusion plus the simulated
 * resource fee) stays within `maxTotalFee` (`MAX_CLOSE_FEE_STROOPS`) and the 32-bit fee field, never below the
 * minimum (a close whose resources alone leave no room is then refused `fee_above_cap` by the signing rule).
 */
export function cappedInclusionFee(ask: bigint, resourceFee: bigint, maxTotalFee: bigint): bigint {
  // The fee field is 32 bits: `MAX_CLOSE_FEE_STROOPS` may allow more than a transaction can carry.
  const room = (maxTotalFee < MAX_TRANSACTION_FEE ? maxTotalFee : MAX_TRANSACTION_FEE) - resourceFee;
  const fee = ask < room ? ask : room;
  return fee > MIN_INCLUSION_FEE ? fee : MIN_INCLUSION_FEE;
}

/** Each re-pricing step at least doubles the last bid (docs/agent.md, Re-pricing). */
export const REPRICE_FACTOR = 2n;

/**
 * The next bid of a close not included in the ledger after it was sent: twice the last bid or the network's ask
 * now (`networkInclusionFee`), whichever is higher, lowered to the room `MAX_CLOSE_FEE_STROOPS` leaves beside the
 * resource fee. `undefined` once that is no more than the last bid (the cap is reached: no higher bid is possible).
 */
export function repricedInclusionFee(
  lastBid: bigint,
  ask: bigint,
  resourceFee: bigint,
  maxTotalFee: bigint,
): bigint | undefined {
  const doubled = lastBid * REPRICE_FACTOR;
  const fee = cappedInclusionFee(doubled > ask ? doubled : ask, resourceFee, maxTotalFee);
  return fee > lastBid ? fee : undefined;
}

/** What `rpc.Server.getFeeStats` (or `LedgerRpc.getFeeStats`) offers the reader. */
export interface FeeStatsSource {
  getFeeStats(): Promise<{ readonly sorobanInclusionFee: InclusionFeeDistribution }>;
}

/**
 * Reads the network's ask from `getFeeStats`, at most once per `maxAgeMs`. When the RPC fails the last ask read
 * stands (a failing RPC is likeliest when the network is busiest: falling back to the minimum then would offer the
 * least when the most is needed); before any successful read, the minimum.
 */
export class CloseFeeReader {
  private last: { fee: bigint; atMs: number } | undefined;
  private reading: Promise<bigint> | undefined;

  constructor(
    private readonly source: FeeStatsSource,
    private readonly maxAgeMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The last ask read, without I/O (the minimum before the first read). */
  known(): bigint {
    return this.last?.fee ?? MIN_INCLUSION_FEE;
  }

  async ask(): Promise<bigint> {
    if (this.last && this.now() - this.last.atMs < this.maxAgeMs) return this.last.fee;
    this.reading ??= this.source
      .getFeeStats()
      .then(
        (stats) => {
          const fee = networkInclusionFee(stats.sorobanInclusionFee);
          this.last = { fee, atMs: this.now() };
          return fee;
        },
        () => this.known(),
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}

function transactionOf(envelopeXdr: string): xdr.Transaction {
  const envelope = xdr.TransactionEnvelope.fromXDR(envelopeXdr, 'base64');
  if (envelope.switch() !== xdr.EnvelopeType.envelopeTypeTx()) throw new Error('not a v1 transaction envelope');
  return envelope.v1().tx();
}

/** The Soroban resource fee of an envelope (0 without Soroban data). */
export function resourceFeeOf(envelopeXdr: string): bigint {
  const ext = transactionOf(envelopeXdr).ext();
  return ext.switch() === 1 ? BigInt(ext.sorobanData().resourceFee().toString()) : 0n;
}

/** The inclusion fee an envelope bids: its fee less its resource fee (one operation). */
export function inclusionFeeOf(envelopeXdr: string): bigint {
  return BigInt(transactionOf(envelopeXdr).fee()) - resourceFeeOf(envelopeXdr);
}

/**
 * The same unsigned transaction bidding `inclusionFee`: fee = inclusion + resource fee, nothing else changed
 * (signatures dropped: the hash changes). The fee field is 32 bits.
 */
export function withInclusionFee(envelopeXdr: string, inclusionFee: bigint): string {
  const envelope = xdr.TransactionEnvelope.fromXDR(envelopeXdr, 'base64');
  if (envelope.switch() !== xdr.EnvelopeType.envelopeTypeTx()) throw new Error('not a v1 transaction envelope');
  const total = inclusionFee + resourceFeeOf(envelopeXdr);
  if (total > MAX_TRANSACTION_FEE) throw new RangeError(`fee ${total} stroops does not fit a transaction`);
  envelope.v1().tx().fee(Number(total));
  envelope.v1().signatures([]);
  return envelope.toXDR('base64');
}
