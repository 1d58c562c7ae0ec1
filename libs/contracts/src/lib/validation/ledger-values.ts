import { StrKey } from '@stellar/stellar-base';

/** Largest value of a Soroban `i128`, the type of every token amount on the ledger. */
export const I128_MAX = (1n << 127n) - 1n;

/** A ledger account address: `G...`, 56 characters, version byte and CRC16 checksum verified. */
export function isLedgerAccountAddress(value: unknown): value is string {
  return typeof value === 'string' && StrKey.isValidEd25519PublicKey(value);
}

/** A contract address: `C...`, 56 characters, version byte and CRC16 checksum verified. */
export function isContractAddress(value: unknown): value is string {
  return typeof value === 'string' && StrKey.isValidContract(value);
}

/**
 * An amount in the asset's smallest units: a canonical non-negative integer string (no sign, no leading zeros,
 * no decimals) that fits an i128.
 */
export function isBaseUnitAmount(value: unknown): value is string {
  return typeof value === 'string' && /^(0|[1-9][0-9]{0,38})$/.test(value) && BigInt(value) <= I128_MAX;
}

/** A ledger secret seed: `S...`, checksum verified. Only settings carry these; no API accepts one. */
export function isLedgerSecretSeed(value: unknown): value is string {
  return typeof value === 'string' && StrKey.isValidEd25519SecretSeed(value);
}
