import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';

/** A phrase that is not a valid BIP-39 english mnemonic. Never carries the phrase, nor any word of it. */
export class InvalidMnemonicError extends Error {
  override readonly name = 'InvalidMnemonicError';

  constructor(readonly wordCount: number) {
    super(`mnemonic is not a valid BIP-39 english phrase (${wordCount} words)`);
  }
}

/** Single spaces, lower case, NFKD: what BIP-39 hashes, whatever the operator pasted. */
export function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.normalize('NFKD').trim().toLowerCase().split(/\s+/).join(' ');
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normalizeMnemonic(mnemonic), wordlist);
}

/** The 64-byte BIP-39 seed. Checks the words and checksum first: a typo must not yield a valid, empty wallet. */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  const normalized = normalizeMnemonic(mnemonic);
  if (!validateMnemonic(normalized, wordlist)) {
    throw new InvalidMnemonicError(normalized === '' ? 0 : normalized.split(' ').length);
  }
  return mnemonicToSeedSync(normalized, passphrase);
}
