import { riskLevelOfHealthFactor, type RiskLevel } from '@rp/contracts';
import { baseValueCeil, baseValueFloor, healthFactor, positionData } from './health';
import type { Positions, PriceData, Reserve } from './layouts';
import { toAssetFromBToken, toAssetFromDToken, toEffectiveAssetFromBToken, toEffectiveAssetFromDToken } from './math';

/** One reserve of a user's position; amounts in the reserve token's units, values in oracle base units. */
export interface ReservePositionSummary {
  readonly asset: string;
  readonly index: number;
  readonly price: bigint | undefined;
  readonly supplyBTokens: bigint;
  readonly collateralBTokens: bigint;
  readonly liabilityDTokens: bigint;
  /** Underlying: bTokens x bRate (floor), dTokens x dRate (ceil). */
  readonly supply: bigint;
  readonly collateral: bigint;
  readonly liability: bigint;
  readonly collateralValue: bigint;
  readonly liabilityValue: bigint;
  /** After the collateral factor / liability factor. */
  readonly effectiveCollateralValue: bigint;
  readonly effectiveLiabilityValue: bigint;
}

export interface PositionSummary {
  readonly reserves: readonly ReservePositionSummary[];
  /** Sum of collateral (not plain supply) and of debt at oracle prices, before factors. */
  readonly collateralValue: bigint;
  readonly liabilityValue: bigint;
  /** The same after factors: what the pool's health check compares. */
  readonly effectiveCollateralValue: bigint;
  readonly effectiveLiabilityValue: bigint;
  /** 7 decimals; null when there is no debt. */
  readonly healthFactor: bigint | null;
  readonly riskLevel: RiskLevel;
  /** Oracle decimals the values are expressed in. */
  readonly valueDecimals: number;
}

export interface SummaryPrices {
  readonly decimals: number;
  readonly prices: ReadonlyMap<string, PriceData>;
}

/** The oracle has no usable price for an asset of the position: the pool refuses such a position (InvalidPrice). */
export class MissingPriceError extends Error {
  override readonly name = 'MissingPriceError';

  constructor(readonly asset: string) {
    super(`No valid oracle price for ${asset}`);
  }
}

/** The price `summarizePositions` and the planners value an asset at; `MissingPriceError` when there is none. */
export function priceReader(prices: SummaryPrices): (asset: string) => bigint {
  return (asset) => {
    const price = prices.prices.get(asset)?.price;
    if (price === undefined || price <= 0n) throw new MissingPriceError(asset);
    return price;
  };
}

/** A user's position the way the pool's health check sees it, plus per-reserve detail for display. */
export function summarizePositions(
  reserves: readonly Reserve[],
  prices: SummaryPrices,
  positions: Positions,
): PositionSummary {
  // The pool fails a position without a price with InvalidPrice (1210); a reader cannot value it either.
  const totals = positionData(reserves, positions, priceReader(prices), prices.decimals);
  const rows = reserves.flatMap((reserve, index): ReservePositionSummary[] => {
    const supplyBTokens = positions.supply.get(index) ?? 0n;
    const collateralBTokens = positions.collateral.get(index) ?? 0n;
    const liabilityDTokens = positions.liabilities.get(index) ?? 0n;
    if (supplyBTokens === 0n && collateralBTokens === 0n && liabilityDTokens === 0n) return [];
    const price = prices.prices.get(reserve.asset)?.price;
    const value = (fn: typeof baseValueFloor, amount: bigint): bigint =>
      price === undefined || amount === 0n ? 0n : fn(price, amount, reserve.scalar);
    const collateral = toAssetFromBToken(reserve, collateralBTokens);
    const liability = toAssetFromDToken(reserve, liabilityDTokens);
    return [
      {
        asset: reserve.asset,
        index,
        price,
        supplyBTokens,
        collateralBTokens,
        liabilityDTokens,
        supply: toAssetFromBToken(reserve, supplyBTokens),
        collateral,
        liability,
        collateralValue: value(baseValueFloor, collateral),
        liabilityValue: value(baseValueCeil, liability),
        effectiveCollateralValue: value(baseValueFloor, toEffectiveAssetFromBToken(reserve, collateralBTokens)),
        effectiveLiabilityValue: value(baseValueCeil, toEffectiveAssetFromDToken(reserve, liabilityDTokens)),
      },
    ];
  });
  const hf = healthFactor(totals);
  return {
    reserves: rows,
    collateralValue: totals.collateralRaw,
    liabilityValue: totals.liabilityRaw,
    effectiveCollateralValue: totals.collateralBase,
    effectiveLiabilityValue: totals.liabilityBase,
    healthFactor: hf,
    riskLevel: riskLevelOfHealthFactor(hf),
    valueDecimals: prices.decimals,
  };
}
