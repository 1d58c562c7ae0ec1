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
