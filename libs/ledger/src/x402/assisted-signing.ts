import { xdr } from '@stellar/stellar-sdk';
import { accountSignatureScVal, authorizationPreimage, verifyAuthorizationSignature } from './exact-transfer';

/** A signature of the server-assisted flow that does not belong to the payer or to its preimage. */
/** A part of the assisted payment is wrong: `field` names it, `reason` says what is wrong with it. */
export class AssistedSignatureError extends Error {
  override readonly name = 'AssistedSignatureError';

  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}

function addressEntries(envelope: xdr.TransactionEnvelope): xdr.SorobanAuthorizationEntry[] {
  const operations = envelope.v1().tx().operations();
  if (operations.length !== 1) return [];
  const body = operations[0].body();
  if (body.switch() !== xdr.OperationType.invokeHostFunction()) return [];
  return body
    .invokeHostFunctionOp()
    .auth()
    .filter((entry) => entry.credentials().switch() === xdr.SorobanCredentialsType.sorobanCredentialsAddress());
}

function parseEnvelope(envelope: string, field: string): xdr.TransactionEnvelope {
  try {
    const parsed = xdr.TransactionEnvelope.fromXDR(envelope, 'base64');
    if (parsed.switch() !== xdr.EnvelopeType.envelopeTypeTx()) throw new Error('not a v1 envelope');
    return parsed;
  } catch {
    throw new AssistedSignatureError(field, 'does not hold a transaction envelope');
  }
}

/**
 * Step one of the server-assisted flow: fixes the expiration of every address authorization of an assembled,
 * unsigned transaction and returns the envelope with the base64 `HashIdPreimage` each one must sign.
 */
export function authorizationPreimages(
  envelope: string,
  passphrase: string,
  expirationLedger: number,
): { envelope: string; preimageXdrs: string[] } {
  const parsed = parseEnvelope(envelope, 'transaction');
  const entries = addressEntries(parsed);
  for (const entry of entries) entry.credentials().address().signatureExpirationLedger(expirationLedger);
  return {
    envelope: parsed.toXDR('base64'),
    preimageXdrs: entries.map((entry) => authorizationPreimage(entry, passphrase).toXDR('base64')),
  };
}

export interface AssistedSignatures {
  /** The envelope from `authorizationPreimages`, as the client returned it (inside `txJson`). */
  envelope: string;
  passphrase: string;
  payer: string;
  preimageXdrs: readonly string[];
  /** base64 ed25519 signatures of sha256(preimage i), in preimage order. */
  signatures: readonly string[];
  maxLedger: number;
}

/**
 * Step two: checks that the preimages are the envelope's own (with expiration `maxLedger`) and that each
 * signature is the payer's, then writes the signatures into the credentials. Pure: no RPC call is spent on a
 * signature that does not verify. Throws `AssistedSignatureError` naming the field.
 */
export function attachAssistedSignatures(input: AssistedSignatures): string {
  const parsed = parseEnvelope(input.envelope, 'txJson');
  const entries = addressEntries(parsed);
  if (entries.length === 0) throw new AssistedSignatureError('txJson', 'holds no authorization to sign');
  if (input.preimageXdrs.length !== entries.length) {
    throw new AssistedSignatureError('preimageXdrs', `must hold ${entries.length} preimage(s)`);
  }
  if (input.signatures.length !== entries.length) {
    throw new AssistedSignatureError('signedAuthEntries', `must hold ${entries.length} signature(s)`);
  }
  entries.forEach((entry, index) => {
    const credentials = entry.credentials().address();
    const expected = authorizationPreimage(entry, input.passphrase, input.maxLedger);
    if (expected.toXDR('base64') !== input.preimageXdrs[index]) {
      throw new AssistedSignatureError(
        `preimageXdrs[${index}]`,
        'is not the preimage of the prepared transaction at maxLedger',
      );
    }
    const signature = Buffer.from(input.signatures[index], 'base64');
    if (!verifyAuthorizationSignature(expected, input.payer, signature)) {
      throw new AssistedSignatureError(
        `signedAuthEntries[${index}]`,
        `is not walletAddress's signature of preimage ${index}`,
      );
    }
    credentials.signatureExpirationLedger(input.maxLedger);
    credentials.signature(accountSignatureScVal(input.payer, signature));
  });
  return parsed.toXDR('base64');
}
