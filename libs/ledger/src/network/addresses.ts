import { isContractAddress, isLedgerAccountAddress } from '@rp/contracts';

export { isContractAddress };

/** An account address (`G...`), checksum verified. */
export function isAccountAddress(value: unknown): value is string {
  return isLedgerAccountAddress(value);
}

/** Anything that can hold a token balance: an account (`G...`) or a contract (`C...`). */
export function isHolderAddress(value: unknown): value is string {
  return isLedgerAccountAddress(value) || isContractAddress(value);
}

/** An input that should have been a ledger address. The value is not echoed: callers may pass anything. */
export class InvalidAddressError extends Error {
  override readonly name = 'InvalidAddressError';

  constructor(readonly field: string) {
    super(`${field} is not a valid ledger address`);
  }
}
