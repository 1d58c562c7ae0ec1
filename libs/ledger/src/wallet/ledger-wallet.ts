import {
  FeeBumpTransaction,
  Keypair,
  Transaction,
  TransactionBuilder,
  contract,
  hash,
  xdr,
} from '@stellar/stellar-sdk';
import { mnemonicToSeed } from './mnemonic';
import { InvalidDerivationIndexError, deriveEd25519Key, isDerivationIndex, sep5Path } from './slip10';

export interface WalletDerivation {
  /** BIP-39 passphrase (the "25th word"); empty when absent. */
  passphrase?: string;
  /** SEP-5 account index: m/44'/148'/index'. Default 0, the primary key. */
  index?: number;
}

/** Signing was asked for another address than the wallet's. */
export class SignerMismatchError extends Error {
  override readonly name = 'SignerMismatchError';

  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`auth entry must be signed by ${expected}, this wallet is ${actual}`);
  }
}

/** Input to a signing method that is not what it must be (the input itself is not echoed). */
export class InvalidSigningInputError extends Error {
  override readonly name = 'InvalidSigningInputError';
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * A SEP-5 account derived from a mnemonic. The key never leaves the `#keypair` field: no getter returns it, and
 * every way of printing the wallet (JSON, inspect, string) shows only the address.
 */
export class LedgerWallet {
  readonly #keypair: Keypair;
  readonly address: string;

  private constructor(keypair: Keypair) {
    this.#keypair = keypair;
    this.address = keypair.publicKey();
  }

  /** Throws `InvalidMnemonicError` (without the words) or `InvalidDerivationIndexError`. */
  static fromMnemonic(mnemonic: string, derivation: WalletDerivation = {}): LedgerWallet {
    const index = derivation.index ?? 0;
    if (!isDerivationIndex(index)) throw new InvalidDerivationIndexError();
    const seed = mnemonicToSeed(mnemonic, derivation.passphrase ?? '');
    const key = deriveEd25519Key(seed, sep5Path(index));
    seed.fill(0);
    try {
      return new LedgerWallet(Keypair.fromRawEd25519Seed(key));
    } finally {
      key.fill(0);
    }
  }

  /** Adds this wallet's signature to the envelope (the network is the one the transaction was built for). */
  signTransaction<T extends Transaction | FeeBumpTransaction>(tx: T): T {
    tx.sign(this.#keypair);
    return tx;
  }

  /**
   * Signs a transaction envelope (base64) for the network of `networkPassphrase` and returns the signed envelope: what
   * a wallet does with the unsigned XDR a builder hands it.
   */
  signTransactionXdr(transactionXdr: string, networkPassphrase: string): string {
    const tx = TransactionBuilder.fromXDR(transactionXdr, networkPassphrase);
    tx.sign(this.#keypair);
    return tx.toXDR();
  }

  /** Ed25519 signature of a 32-byte hash (a transaction or auth-entry payload hash). */
  signHash(digest: Uint8Array): Buffer {
    if (!(digest instanceof Uint8Array) || digest.length !== 32) {
      throw new InvalidSigningInputError('signHash expects a 32-byte hash');
    }
    return this.#keypair.sign(Buffer.from(digest));
  }

  /**
   * The `signAuthEntry` callback of `contract.AssembledTransaction.signAuthEntries`: given the base64
   * `HashIdPreimage`, returns the base64 signature of its sha256. Only Soroban authorization preimages are
   * accepted, so the callback cannot be abused to sign an arbitrary payload.
   */
  readonly signAuthEntry: contract.SignAuthEntry = async (authEntry, opts) => {
    if (opts?.address && opts.address !== this.address) throw new SignerMismatchError(opts.address, this.address);
    const preimage = decodeAuthPreimage(authEntry);
    const signature = this.#keypair.sign(hash(preimage.toXDR()));
    return { signedAuthEntry: signature.toString('base64'), signerAddress: this.address };
  };

  toJSON(): { address: string } {
    return { address: this.address };
  }

  toString(): string {
    return `LedgerWallet(${this.address})`;
  }

  [INSPECT](): string {
    return this.toString();
  }
}

function decodeAuthPreimage(base64: string): xdr.HashIdPreimage {
  let preimage: xdr.HashIdPreimage;
  try {
    preimage = xdr.HashIdPreimage.fromXDR(base64, 'base64');
  } catch {
    throw new InvalidSigningInputError('auth entry is not a base64 HashIdPreimage');
  }
  if (preimage.switch().value !== xdr.EnvelopeType.envelopeTypeSorobanAuthorization().value) {
    throw new InvalidSigningInputError('auth entry preimage is not a Soroban authorization');
  }
  return preimage;
}
