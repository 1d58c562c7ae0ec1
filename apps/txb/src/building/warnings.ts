import { type TxbWarning, TxbWarningCode } from '@rp/contracts';
import { MIN_INCLUSION_FEE, type PositionSummary } from '@rp/ledger';
import { formatUnits, healthFactorNumber } from './preview';

/** Oracle prices older than this are called out (DECISIONS.md); the pool itself accepts a day. */
export const STALE_PRICE_SECONDS = 300;

/** Pool statuses (Blend v2): 2-3 on ice (no borrowing, so no flash loan), 4-5 frozen (no supplying either). */
const ON_ICE = new Set([2, 3]);
const FROZEN = new Set([4, 5]);

export interface WarningFacts {
  readonly poolStatus: number;
  /** Unix seconds now, and each position asset's price time. */
  readonly now: number;
  readonly priceTimes: ReadonlyMap<string, bigint>;
  readonly before: PositionSummary;
  readonly after: PositionSummary;
  /** The amount asked for was more than the position holds. */
  readonly capped?: { token: string; asked: bigint; used: bigint };
  /** The most the transaction takes from the wallet in one token, and what the wallet holds of it. */
  readonly maxCost?: { token: string; amount: bigint; balance: bigint; decimals: number };
  /** The transaction is an approval that must land before the unwind can be built. */
  readonly approval?: { token: string; amount: bigint; expirationLedger: number };
  /** The inclusion fee the transaction bids, and whether recent fees are above the minimum. */
  readonly fee?: { fee: bigint; congested: boolean };
}

/** `warnings[]` of a build answer, in a stable order. */
export function warningsFor(facts: WarningFacts): TxbWarning[] {
  const warnings: TxbWarning[] = [];
  if (facts.approval) {
    const { token, amount, expirationLedger } = facts.approval;
    warnings.push({
      code: TxbWarningCode.APPROVAL_REQUIRED,
      message:
        `This transaction lets the pool pull up to ${amount} base units of ${token} from the wallet until ledger ` +
        `${expirationLedger}: the flash-loan unwind settles with transfer_from. Sign and submit it, then build ` +
        'UNWIND again.',
    });
  }
  if (facts.maxCost && facts.maxCost.balance < facts.maxCost.amount) {
    const { token, amount, balance, decimals } = facts.maxCost;
    warnings.push({
      code: TxbWarningCode.INSUFFICIENT_BALANCE,
      message: `The wallet holds ${formatUnits(balance, decimals)} of ${token}, less than the max cost ${formatUnits(amount, decimals)}`,
    });
  }
  if (ON_ICE.has(facts.poolStatus)) {
    warnings.push({
      code: TxbWarningCode.POOL_ON_ICE,
      message: `The pool is on ice (status ${facts.poolStatus}): borrowing and flash loans are refused`,
    });
  }
  if (FROZEN.has(facts.poolStatus)) {
    warnings.push({
      code: TxbWarningCode.POOL_FROZEN,
      message: `The pool is frozen (status ${facts.poolStatus}): only repaying and withdrawing work`,
    });
  }
  for (const [asset, time] of facts.priceTimes) {
    const age = facts.now - Number(time);
    if (age > STALE_PRICE_SECONDS) {
      warnings.push({
        code: TxbWarningCode.STALE_PRICE,
        message: `The oracle price of ${asset} is ${age} s old (more than ${STALE_PRICE_SECONDS} s)`,
      });
    }
  }
  if (facts.capped) {
    warnings.push({
      code: TxbWarningCode.AMOUNT_CAPPED,
      message: `Asked for ${facts.capped.asked} of ${facts.capped.token}; the position holds ${facts.capped.used}, which is used`,
    });
  }
  if (facts.fee?.congested) {
    warnings.push({
      code: TxbWarningCode.NETWORK_CONGESTED,
      message:
        `Recent inclusion fees are above the ${MIN_INCLUSION_FEE}-stroop minimum (surge pricing): this transaction ` +
        `bids ${facts.fee.fee} stroops; feeLevel "high" bids more`,
    });
  }
  const before = facts.before.healthFactor;
  const after = facts.after.healthFactor;
  if (after !== null && ((before !== null && after < before) || facts.after.riskLevel !== 'low')) {
    warnings.push({
      code: TxbWarningCode.HEALTH_FACTOR_AFTER,
      message: `Health factor after this transaction: ${healthFactorNumber(after)} (${facts.after.riskLevel} risk)`,
    });
  }
  return warnings;
}
