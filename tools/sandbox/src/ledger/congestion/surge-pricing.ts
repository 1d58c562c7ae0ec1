import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import { BASE_FEE } from '../fees';
import type { ParsedEnvelope } from '../transactions/envelope';

/**
 * Operations the inclusion fee is spread over, as stellar-core counts them: the transaction's operations, plus one
 * for a fee bump's outer envelope.
 */
export function feeOperations(parsed: ParsedEnvelope): bigint {
  return BigInt(parsed.operationCount + (parsed.envelope instanceof FeeBumpTransaction ? 1 : 0));
}

/** The inclusion fee a transaction bids: its declared fee less the Soroban resource fee. */
export function inclusionBid(parsed: ParsedEnvelope): bigint {
  const resourceFee = parsed.sorobanData ? BigInt(parsed.sorobanData.resourceFee().toString()) : 0n;
  return parsed.declaredFee - resourceFee;
}

/** The bid per operation: what surge pricing orders transactions by. */
export function feeRate(parsed: ParsedEnvelope): bigint {
  return inclusionBid(parsed) / feeOperations(parsed);
}

export interface LedgerSelection {
  /** Transactions that enter the ledger, highest fee rate first, ties by arrival. */
  readonly included: ParsedEnvelope[];
  /** Transactions left in the queue for a later ledger, in arrival order. */
  readonly waiting: ParsedEnvelope[];
  /**
   * The lane's base fee per operation: the lowest included fee rate when the limit left someone out (surge
   * pricing), the network minimum otherwise.
   */
  readonly baseFee: bigint;
}

/**
 * Picks the Soroban transactions of the next ledger from the queue (given in arrival order), as stellar-core's
 * surge pricing does for the Soroban lane: when more want in than `limit`, the highest bids per operation win and
 * every included transaction pays the lowest included bid per operation. Core breaks ties at random; the sandbox
 * breaks them by arrival so tests can rely on the order.
 */
export function selectForLedger(queue: readonly ParsedEnvelope[], limit: number): LedgerSelection {
  if (queue.length <= limit) return { included: [...queue], waiting: [], baseFee: BASE_FEE };
  const ranked = queue
    .map((parsed, arrival) => ({ parsed, arrival, rate: feeRate(parsed) }))
    .sort((a, b) => (a.rate === b.rate ? a.arrival - b.arrival : a.rate > b.rate ? -1 : 1));
  const chosen = ranked.slice(0, limit);
  const chosenSet = new Set(chosen.map((entry) => entry.parsed));
  const lowest = chosen.length > 0 ? chosen[chosen.length - 1].rate : BASE_FEE;
  return {
    included: chosen.map((entry) => entry.parsed),
    waiting: queue.filter((parsed) => !chosenSet.has(parsed)),
    baseFee: lowest > BASE_FEE ? lowest : BASE_FEE,
  };
}

/**
 * The fee stellar-core charges when applying (`TransactionFrame::getFee` with `applying`): the declared resource
 * fee plus the smaller of the inclusion bid and the lane's base fee times the operations.
 */
export function feeCharged(parsed: ParsedEnvelope, baseFee: bigint = BASE_FEE): bigint {
  const resourceFee = parsed.sorobanData ? BigInt(parsed.sorobanData.resourceFee().toString()) : 0n;
  const adjusted = baseFee * feeOperations(parsed);
  const bid = inclusionBid(parsed);
  return resourceFee + (bid < adjusted ? bid : adjusted);
}

/** The inclusion part of a charged fee: the charge less the declared resource fee (as stellar-rpc's fee window). */
export function inclusionFeeOf(parsed: ParsedEnvelope, charged: bigint): bigint {
  const resourceFee = parsed.sorobanData ? BigInt(parsed.sorobanData.resourceFee().toString()) : 0n;
  return charged - resourceFee;
}
