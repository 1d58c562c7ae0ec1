import { DEFAULT_RISK_BOUNDS, type RiskLevelBounds } from '@rp/contracts';
import type { Reserve } from './layouts';
import { type PoolConditions, type RaisedTrigger, poolTriggers, utilizationBps } from './pool-triggers';
import type { SummaryPrices } from './position-summary';
import { borrowRate } from './rate-triggers';

/**
 * What a round knows of one reserve, the same for every position in the pool: the integers the pool's health
 * factor is computed from, and what the triggers compare against a wallet's bounds. Computed once per round and
 * pool (`poolFacts`), where `assessPosition` computes them again for each position.
 */
export interface ReserveFacts {
  readonly bRate: bigint;
  readonly dRate: bigint;
  /** The collateral and liability factors (7 decimals) and 10^decimals of the reserve's token. */
  readonly cFactor: bigint;
  readonly lFactor: bigint;
  readonly scalar: bigint;
  /** The oracle's price when it is usable (above 0): a position holding collateral or debt here needs one. */
  readonly price: bigint | undefined;
  /** Floored utilization in basis points; `null` without supply. */
  readonly utilizationBps: number | null;
  /** Ledger close time minus the price's timestamp (seconds), when both are known. */
  readonly priceAge: bigint | undefined;
  /** A stablecoin's price distance from $1 times 10 000 (oracle decimals), compared with `depegBps` x $1. */
  readonly depegOffTimes10k: bigint | undefined;
  /** Borrowed here, the position raises `borrow_rate_jump`: the rate is half again or more of the last round's. */
  readonly borrowRateJumped: boolean;
}

/** A wallet's bounds as the triggers compare them, derived once per round and bounds object. */
export interface TriggerLimits {
  readonly utilizationWarnBps: number;
  readonly utilizationAlertBps: number;
  /** `depegBps` x $1 in oracle decimals; `undefined` without stablecoins. */
  readonly depegLimit: bigint | undefined;
  /** `oracleMaxAgeSeconds`; `undefined` without the ledger's close time. */
  readonly maxPriceAge: bigint | undefined;
}

/** One pool at one round: its reserves' facts by reserve index, and what the pool itself raises. */
export interface PoolFacts {
  /** `undefined` where a reserve index has no reserve. */
  readonly reserves: readonly (ReserveFacts | undefined)[];
  /** The pool status's triggers (`pool_on_ice`, `pool_frozen`). */
  readonly poolRaised: readonly RaisedTrigger[];
  /** The oracle's decimals and 10^decimals. */
  readonly decimals: number;
  readonly oracleScalar: bigint;
  /**
   * Whether every rate, factor, scale and price is positive (a collateral factor may be 0), as every Blend pool's
   * are: then floor and ceiling of the pool's fixed-point math are plain integer division. A pool where this does
   * not hold is assessed with `assessPosition` instead.
   */
  readonly positive: boolean;
  limitsOf(bounds: RiskLevelBounds | undefined): TriggerLimits;
}

/** The facts of a pool whose reserves are accrued and whose prices were read, under its round's conditions. */
export function poolFacts(reserves: readonly Reserve[], prices: SummaryPrices, conditions?: PoolConditions): PoolFacts {
  const oracleScalar = 10n ** BigInt(prices.decimals);
  const stablecoins = conditions?.stablecoins;
  const closeTime = conditions?.ledgerCloseTime;
  const previous = conditions?.previousBorrowRates;
  let positive = true;
  const facts = reserves.map((reserve): ReserveFacts => {
    const quote = prices.prices.get(reserve.asset);
    const price = quote !== undefined && quote.price > 0n ? quote.price : undefined;
    const before = previous && previous.size > 0 ? previous.get(reserve.asset) : undefined;
    const now = before === undefined ? undefined : borrowRate(reserve);
    const off = price === undefined ? undefined : price > oracleScalar ? price - oracleScalar : oracleScalar - price;
    const fact: ReserveFacts = {
      bRate: reserve.data.bRate,
      dRate: reserve.data.dRate,
      cFactor: BigInt(reserve.config.cFactor),
      lFactor: BigInt(reserve.config.lFactor),
      scalar: reserve.scalar,
      price,
      utilizationBps: utilizationBps(reserve),
      priceAge: closeTime === undefined || quote === undefined ? undefined : closeTime - quote.timestamp,
      depegOffTimes10k: off !== undefined && stablecoins?.has(reserve.asset) ? off * 10_000n : undefined,
      borrowRateJumped: before !== undefined && now !== undefined && now > before && now * 2n >= before * 3n,
    };
    positive &&= fact.bRate > 0n && fact.dRate > 0n && fact.cFactor >= 0n && fact.lFactor > 0n && fact.scalar > 0n;
    return fact;
  });
  const limits = new Map<RiskLevelBounds | undefined, TriggerLimits>();
  const hasStablecoins = stablecoins !== undefined && stablecoins.size > 0;
  return {
    reserves: facts,
    poolRaised: poolTriggers(conditions),
    decimals: prices.decimals,
    oracleScalar,
    positive,
    limitsOf(bounds) {
      let known = limits.get(bounds);
      if (!known) {
        known = {
          utilizationWarnBps: bounds?.utilizationWarnBps ?? DEFAULT_RISK_BOUNDS.utilizationWarnBps ?? 8000,
          utilizationAlertBps: bounds?.utilizationAlertBps ?? DEFAULT_RISK_BOUNDS.utilizationAlertBps ?? 9000,
          depegLimit: hasStablecoins
            ? BigInt(bounds?.depegBps ?? DEFAULT_RISK_BOUNDS.depegBps ?? 200) * oracleScalar
            : undefined,
          maxPriceAge:
            closeTime === undefined
              ? undefined
              : BigInt(bounds?.oracleMaxAgeSeconds ?? DEFAULT_RISK_BOUNDS.oracleMaxAgeSeconds ?? 300),
        };
        limits.set(bounds, known);
      }
      return known;
    },
  };
}
