import { Keypair } from '@stellar/stellar-sdk';

/** An ed25519 account key that can sign transactions (a sponsor, a settlement lane). */
export type LedgerKeypair = Keypair;

/** The key of a secret seed (`S...`); throws when it is not one. */
export function keypairFromSecret(secret: string): LedgerKeypair {
  return Keypair.fromSecret(secret);
}
