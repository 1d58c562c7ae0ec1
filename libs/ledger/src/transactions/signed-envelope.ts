import { FeeBumpTransaction, Keypair, Networks, StrKey, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';

/** A transaction read from a signed envelope, ready to be sent as it is. */
export type SignedTransaction = Transaction;

/** Why a base64 string is not a transaction this service can submit for a wallet. */
export type EnvelopeProblem = 'malformed' | 'fee-bump';

export type ParsedEnvelope =
  | { readonly ok: true; readonly transaction: Transaction; readonly hash: string }
  | { readonly ok: false; readonly problem: EnvelopeProblem };

/**
 * Reads a `TransactionEnvelope` as it would be applied on the network of `passphrase`. The hash is the one the
 * network gives it (it does not depend on the signatures). Fee-bump envelopes are told apart: their hash is the
 * outer one, not the transaction's.
 */
export function parseEnvelope(base64: string, passphrase: string): ParsedEnvelope {
  let parsed: Transaction | FeeBumpTransaction;
  try {
    parsed = TransactionBuilder.fromXDR(base64, passphrase);
  } catch {
    return { ok: false, problem: 'malformed' };
  }
  if (parsed instanceof FeeBumpTransaction) return { ok: false, problem: 'fee-bump' };
  return { ok: true, transaction: parsed, hash: parsed.hash().toString('hex') };
}

/**
 * Whether `signer` signed `transaction`: `valid` for this network; `other-network` when the signature is the
 * signer's over the same transaction on another well-known network (signed with the wrong passphrase); `none`
 * without any signature; `unknown` when no signature is the signer's (another signer of a multisig account, or a
 * forgery): only the network can judge those.
 */
export type SignatureCheck = 'valid' | 'other-network' | 'none' | 'unknown';

export function checkSignature(transaction: Transaction, signer: string): SignatureCheck {
  if (transaction.signatures.length === 0) return 'none';
  if (!StrKey.isValidEd25519PublicKey(signer)) return 'unknown';
  const key = Keypair.fromPublicKey(signer);
  const hint = key.signatureHint();
  const own = transaction.signatures.filter((signature) => signature.hint().equals(hint));
  if (own.some((signature) => key.verify(transaction.hash(), signature.signature()))) return 'valid';
  for (const passphrase of Object.values(Networks)) {
    if (passphrase === transaction.networkPassphrase) continue;
    const elsewhere = new Transaction(transaction.toEnvelope(), passphrase).hash();
    if (own.some((signature) => key.verify(elsewhere, signature.signature()))) return 'other-network';
  }
  return 'unknown';
}
