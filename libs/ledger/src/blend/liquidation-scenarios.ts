import { PRICE_DROP_SCENARIOS, type PriceDropScenario, type RiskPositionScenarios } from '@rp/contracts';
import { healthFactor, positionData } from './health';
import type { Positions, Reserve } from './layouts';
import { SCALAR_7, divCeil, divFloor, toEffectiveAssetFromBToken, toEffectiveAssetFromDToken } from './math';
import { fixedToNumber } from './position-risk';
import { type SummaryPrices, priceReader } from './position-summary';

/**
 * Where a position is liquidated, with the pool's own integer math (`positionData`: collateral floored, liabilities
 * ceiled, health factor floored to 7 decimals). "Reaches 1.0" means the health factor the pool computes is at most
 * 1.0000000. Every answer is checked against that health factor recomputed at the answer and one unit beyond it.
 */

/** 100 % as a 7-decimal fraction: `liquidationBuffer`'s scale. */
const WHOLE = SCALAR_7;

export interface LiquidationScenarios {
  /**
   * Collateral asset -> the highest oracle price (oracle decimals) at which the health factor is at most 1.0 (for a
   * collateral asset whose effective debt outweighs its effective collateral: the lowest, the price rising); `null`
   * when no price of that asset alone brings the health factor to 1.0 (no debt, other collateral covers the debt,
   * or the position stays at or below 1.0 at every price).
   */
  readonly liquidationPrices: ReadonlyMap<string, bigint | null>;
  /** The health factor (7 decimals) with every collateral price down by the percent; `null` without debt. */
  readonly healthFactorIf: ReadonlyMap<PriceDropScenario, bigint | null>;
  /**
   * The smallest uniform collateral price drop (a 7-decimal fraction: 2_000_000 is 20 %) at which the health
   * factor is at most 1.0: 0 when it already is; `null` without debt or when no drop gets there.
   */
  readonly liquidationBuffer: bigint | null;
}

/** The position valued at other prices: the health factor at a price map derived from the oracle's. */
class PositionAtPrices {
  private readonly currentPrice: (asset: string) => bigint;
  private readonly collateralAssets: ReadonlySet<string>;

  constructor(
    private readonly reserves: readonly Reserve[],
    private readonly prices: SummaryPrices,
    private readonly positions: Positions,
  ) {
    this.currentPrice = priceReader(prices);
    this.collateralAssets = new Set(
      reserves.filter((_reserve, index) => (positions.collateral.get(index) ?? 0n) > 0n).map((r) => r.asset),
    );
  }

  collateral(): readonly string[] {
    return [...this.collateralAssets];
  }

  /** The health factor (7 decimals) with the prices `priceOf` gives; `null` without debt. */
  healthFactor(priceOf: (asset: string) => bigint): bigint | null {
    return healthFactor(positionData(this.reserves, this.positions, priceOf, this.prices.decimals));
  }

  /** Whether the health factor is at most 1.0 with `asset` at `price` and every other price the oracle's. */
  reachesOneAt(asset: string, price: bigint): boolean {
    return reachesOne(this.healthFactor((other) => (other === asset ? price : this.currentPrice(other))));
  }

  /** The health factor with every collateral price times (1 - drop), floored; `drop` a 7-decimal fraction. */
  healthFactorAfterDrop(drop: bigint): bigint | null {
    return this.healthFactor((asset) => {
      const price = this.currentPrice(asset);
      return this.collateralAssets.has(asset) ? divFloor(price * (WHOLE - drop), WHOLE) : price;
    });
  }

  /** The asset's own collateral and debt after the factors, in its token's units, and its reserve's scalar. */
  effectiveHoldings(asset: string): { collateral: bigint; debt: bigint; scalar: bigint } {
    const index = this.reserves.findIndex((reserve) => reserve.asset === asset);
    const reserve = this.reserves[index];
    const bTokens = this.positions.collateral.get(index) ?? 0n;
    const dTokens = this.positions.liabilities.get(index) ?? 0n;
    return {
      collateral: bTokens > 0n ? toEffectiveAssetFromBToken(reserve, bTokens) : 0n,
      debt: dTokens > 0n ? toEffectiveAssetFromDToken(reserve, dTokens) : 0n,
      scalar: reserve.scalar,
    };
  }

  /** The position's totals with `asset` priced at zero (its own share of collateral and debt removed). */
  totalsWithout(asset: string): { collateral: bigint; debt: bigint } {
    const data = positionData(
      this.reserves,
      this.positions,
      (other) => (other === asset ? 0n : this.currentPrice(other)),
      this.prices.decimals,
    );
    return { collateral: data.collateralBase, debt: data.liabilityBase };
  }
}

const reachesOne = (hf: bigint | null): boolean => hf !== null && hf <= SCALAR_7;

/**
 * `healthFactor` is floor(C x 10^7 / L): at most 1.0 exactly when C x 10^7 < (10^7 + 1) x L, that is when C is at
 * most ceil((10^7 + 1) x L / 10^7) - 1. The largest effective collateral (oracle base units) that leaves the health
 * factor at most 1.0 against effective liabilities `debt`.
 */
export function largestCollateralAtOne(debt: bigint): bigint {
  return divCeil((SCALAR_7 + 1n) * debt, SCALAR_7) - 1n;
}

/**
 * The liquidation price of a collateral asset the position does not borrow, solved exactly: its effective
 * collateral e (token units, after the c-factor) is valued floor(p x e / s), so floor(p x e / s) <= T (T = the
 * largest collateral at 1.0 minus the other collateral) exactly when p <= floor(((T + 1) x s - 1) / e).
 */
function collateralOnlyLiquidationPrice(position: PositionAtPrices, asset: string): bigint | null {
  const { collateral: effective, scalar } = position.effectiveHoldings(asset);
  const others = position.totalsWithout(asset);
  if (others.debt === 0n || effective === 0n) return null;
  const room = largestCollateralAtOne(others.debt) - others.collateral;
  if (room < 0n) return null;
  const solved = divFloor((room + 1n) * scalar - 1n, effective);
  return verifiedHighest(position, asset, solved);
}

/** Steps `price` to the highest price at which the pool's health factor is at most 1.0 (normally no step at all). */
function verifiedHighest(position: PositionAtPrices, asset: string, price: bigint): bigint | null {
  let found = price;
  while (found >= 0n && !position.reachesOneAt(asset, found)) found -= 1n;
  if (found < 0n) return null;
  while (position.reachesOneAt(asset, found + 1n)) found += 1n;
  return found;
}

/**
 * The liquidation price of an asset that is both collateral and debt: moving its price moves both sides, so the
 * health factor falls with the price when its effective collateral outweighs its effective debt and rises with it
 * otherwise. Found by bisection on the pool's health factor between a price at which it is at most 1.0 and one at
 * which it is not: the answer is at most 1.0 and its neighbour one unit away (above for net collateral, below for
 * net debt) is not.
 */
function twoSidedLiquidationPrice(position: PositionAtPrices, asset: string, current: bigint): bigint | null {
  const { collateral, debt } = position.effectiveHoldings(asset);
  const slope = SCALAR_7 * collateral - (SCALAR_7 + 1n) * debt;
  if (slope === 0n) return null;
  const risesWithPrice = slope > 0n;
  const under = (price: bigint) => position.reachesOneAt(asset, price);
  // Net collateral: at most 1.0 at low prices; net debt: at high prices. Price 0 is the low end.
  if (under(0n) !== risesWithPrice) return null;
  let far = current > 0n ? current : 1n;
  for (let doubling = 0; under(far) === risesWithPrice; doubling += 1) {
    if (doubling > 256) return null;
    far *= 2n;
  }
  let low = 0n;
  let high = far;
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (under(middle) === risesWithPrice) low = middle;
    else high = middle;
  }
  return risesWithPrice ? low : high;
}

/**
 * The smallest uniform collateral drop (7-decimal fraction) at which the health factor is at most 1.0, by bisection
 * on the pool's health factor (it falls as the drop grows when the collateral assets are not also borrowed).
 */
function liquidationBuffer(position: PositionAtPrices): bigint | null {
  const now = position.healthFactorAfterDrop(0n);
  if (now === null) return null;
  if (reachesOne(now)) return 0n;
  if (!reachesOne(position.healthFactorAfterDrop(WHOLE))) return null;
  let low = 0n;
  let high = WHOLE;
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (reachesOne(position.healthFactorAfterDrop(middle))) high = middle;
    else low = middle;
  }
  return high;
}

/** The scenarios of a position whose reserves are accrued and whose prices were read (as `assessPosition`). */
export function scenariosOfPosition(
  reserves: readonly Reserve[],
  prices: SummaryPrices,
  positions: Positions,
): LiquidationScenarios {
  const position = new PositionAtPrices(reserves, prices, positions);
  const current = priceReader(prices);
  const liquidationPrices = new Map<string, bigint | null>();
  for (const asset of position.collateral()) {
    const borrowed = position.effectiveHoldings(asset).debt > 0n;
    liquidationPrices.set(
      asset,
      borrowed
        ? twoSidedLiquidationPrice(position, asset, current(asset))
        : collateralOnlyLiquidationPrice(position, asset),
    );
  }
  const healthFactorIf = new Map<PriceDropScenario, bigint | null>();
  for (const scenario of PRICE_DROP_SCENARIOS) {
    const percent = -BigInt(scenario);
    healthFactorIf.set(scenario, position.healthFactorAfterDrop((percent * WHOLE) / 100n));
  }
  return { liquidationPrices, healthFactorIf, liquidationBuffer: liquidationBuffer(position) };
}

/** A fixed-point integer as a decimal string with every decimal: `fixedToDecimalString(2_123_450n, 7)` "0.2123450". */
export function fixedToDecimalString(value: bigint, decimals: number): string {
  const sign = value < 0n ? '-' : '';
  const digits = (value < 0n ? -value : value).toString().padStart(decimals + 1, '0');
  if (decimals === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** The risk answer's fields: prices as strings in the oracle's decimals, the buffer in percent (5 decimals). */
export function scenariosView(scenarios: LiquidationScenarios, oracleDecimals: number): RiskPositionScenarios {
  const hf = (value: bigint | null) => (value === null ? null : fixedToNumber(value, 7));
  return {
    liquidationPrices: Object.fromEntries(
      [...scenarios.liquidationPrices].map(([asset, price]) => [
        asset,
        price === null ? null : fixedToDecimalString(price, oracleDecimals),
      ]),
    ),
    healthFactorIf: {
      '-5': hf(scenarios.healthFactorIf.get('-5') ?? null),
      '-10': hf(scenarios.healthFactorIf.get('-10') ?? null),
      '-20': hf(scenarios.healthFactorIf.get('-20') ?? null),
      '-30': hf(scenarios.healthFactorIf.get('-30') ?? null),
    },
    // A 7-decimal fraction is a percent with 5 decimals.
    liquidationBuffer: scenarios.liquidationBuffer === null ? null : fixedToNumber(scenarios.liquidationBuffer, 5),
  };
}

/** `scenariosOfPosition` as the risk answer shows it. */
export function liquidationScenarios(
  reserves: readonly Reserve[],
  prices: SummaryPrices,
  positions: Positions,
): RiskPositionScenarios {
  return scenariosView(scenariosOfPosition(reserves, prices, positions), prices.decimals);
}
