import { I128_MAX } from '@rp/contracts';

/** A token amount that is not a non-negative integer in i128 range. The value is not echoed. */
export class InvalidTokenAmountError extends Error {
  override readonly name = 'InvalidTokenAmountError';

  constructor(reason: string) {
    super(`token amount ${reason}`);
  }
}

/**
 * Amounts are bigint base units, as SEP-41 `i128`. A `number` is refused even when whole: it has already been
 * through floating point.
 */
export function assertTokenAmount(amount: unknown): asserts amount is bigint {
  if (typeof amount !== 'bigint') throw new InvalidTokenAmountError('must be a bigint of base units');
  if (amount < 0n) throw new InvalidTokenAmountError('must not be negative');
  if (amount > I128_MAX) throw new InvalidTokenAmountError('exceeds i128');
}

/** `'0.2026'` -> `2026000n`: a decimal USD amount in a stablecoin's base units, exact arithmetic on the string. */
export function usdToBaseUnits(price: string, decimals = 7): bigint {
  const [whole, fraction = ''] = price.split('.');
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0').slice(0, decimals) || '0');
}

/** `2026000n` -> `'0.2026'`: the decimal USD string of an amount in base units, without trailing zeros. */
export function baseUnitsToUsd(amount: bigint, decimals = 7): string {
  const scale = 10n ** BigInt(decimals);
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${amount / scale}.${fraction}` : `${amount / scale}`;
}
