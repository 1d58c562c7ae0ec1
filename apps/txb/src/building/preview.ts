import type { BuildPreview } from '@rp/contracts';
import type { PositionSummary } from '@rp/ledger';

/** A bigint of base units with `decimals` decimals as a decimal string: 12345678n, 7 -> "1.2345678". */
export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** A 7-decimal health factor as a number (null: no debt). */
export const healthFactorNumber = (scaled: bigint | null): number | null =>
  scaled === null ? null : Number(scaled) / 1e7;

/** The position before the transaction and as its simulation leaves it. */
export function previewOf(before: PositionSummary, after: PositionSummary): BuildPreview {
  return {
    healthFactorBefore: healthFactorNumber(before.healthFactor),
    healthFactorAfter: healthFactorNumber(after.healthFactor),
    riskLevelAfter: after.riskLevel,
    collateralValueUsdAfter: formatUnits(after.collateralValue, after.valueDecimals),
    liabilityValueUsdAfter: formatUnits(after.liabilityValue, after.valueDecimals),
  };
}
