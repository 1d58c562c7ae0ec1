import { FeeBumpTransaction, Keypair, StrKey, Transaction, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { BASE_FEE, MINIMUM_BALANCE, declaredResources, resourceFeeFor } from '../fees';
import { readAccount, signingWeight } from '../state/entries';
import type { EntryReader } from '../state/ledger-state';

/** A submitted envelope, parsed once: the inner transaction, who pays, and the Soroban parts. */
export interface ParsedEnvelope {
  readonly envelope: Transaction | FeeBumpTransaction;
  readonly inner: Transaction;
  /** Hex hash of the outer envelope: what `sendTransaction` and `getTransaction` talk about. */
  readonly hash: string;
  readonly innerHash: string;
  readonly feeSource: string;
  readonly declaredFee: bigint;
  readonly sorobanData: xdr.SorobanTransactionData | undefined;
  readonly hostFunction: xdr.HostFunction | undefined;
  readonly auth: xdr.SorobanAuthorizationEntry[];
  readonly operationCount: number;
}

export class MalformedEnvelopeError extends Error {}

/** Result codes `sendTransaction` answers in `errorResultXdr`, named as in `xdr.TransactionResultCode`. */
export type RejectionCode =
  | 'txMissingOperation'
  | 'txBadSeq'
  | 'txBadAuth'
  | 'txBadAuthExtra'
  | 'txInsufficientBalance'
  | 'txNoAccount'
  | 'txInsufficientFee'
  | 'txTooEarly'
  | 'txTooLate'
  | 'txMalformed'
  | 'txNotSupported'
  | 'txSorobanInvalid';

export function parseEnvelope(envelopeXdr: string, passphrase: string): ParsedEnvelope {
  let envelope: Transaction | FeeBumpTransaction;
  try {
    envelope = TransactionBuilder.fromXDR(envelopeXdr, passphrase);
  } catch (error) {
    throw new MalformedEnvelopeError(`invalid transaction envelope: ${(error as Error).message}`);
  }
  const inner = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  const body = inner.toEnvelope().v1().tx();
  const ext = body.ext();
  const operations = body.operations();
  const hostFunction =
    operations.length === 1 && operations[0].body().switch().name === 'invokeHostFunction'
      ? operations[0].body().invokeHostFunctionOp()
      : undefined;
  return {
    envelope,
    inner,
    hash: envelope.hash().toString('hex'),
    innerHash: inner.hash().toString('hex'),
    feeSource: envelope instanceof FeeBumpTransaction ? envelope.feeSource : inner.source,
    declaredFee: BigInt(envelope.fee),
    sorobanData: ext.switch() === 1 ? ext.sorobanData() : undefined,
    hostFunction: hostFunction?.hostFunction(),
    auth: hostFunction?.auth() ?? [],
    operationCount: operations.length,
  };
}

/** The fee the network charges: the base fee per operation (and for the fee bump) plus the declared resource fee. */
export function feeToCharge(parsed: ParsedEnvelope): bigint {
  const operations = BigInt(parsed.operationCount + (parsed.envelope instanceof FeeBumpTransaction ? 1 : 0));
  const resourceFee = parsed.sorobanData ? BigInt(parsed.sorobanData.resourceFee().toString()) : 0n;
  return operations * BASE_FEE + resourceFee;
}

/**
 * The checks a validator runs before a transaction may enter a ledger (stellar-core's `checkValid`): shape,
 * accounts, sequence, time bounds (and ledger bounds when the ledger's sequence is given), fees, balance and signatures. Returns the real result code of the first failure.
 */
export function checkEnvelope(
  parsed: ParsedEnvelope,
  state: EntryReader,
  closeTime: bigint,
  ledgerSequence?: number,
): RejectionCode | undefined {
  const { inner } = parsed;
  if (parsed.operationCount === 0) return 'txMissingOperation';
  if (!parsed.hostFunction) return 'txNotSupported';
  if (!parsed.sorobanData) return 'txMalformed';
  if (parsed.hostFunction.switch().name !== 'hostFunctionTypeInvokeContract') return 'txNotSupported';
  if (!StrKey.isValidEd25519PublicKey(inner.source) || !StrKey.isValidEd25519PublicKey(parsed.feeSource)) {
    return 'txMalformed';
  }
  const source = readAccount(state, inner.source);
  const feeSource = readAccount(state, parsed.feeSource);
  if (!source || !feeSource) return 'txNoAccount';
  if (BigInt(inner.sequence) !== source.sequence + 1n) return 'txBadSeq';
  const bounds = inner.timeBounds;
  if (bounds && BigInt(bounds.minTime) > closeTime) return 'txTooEarly';
  if (bounds && bounds.maxTime !== '0' && BigInt(bounds.maxTime) < closeTime) return 'txTooLate';
  const ledgers = inner.ledgerBounds;
  if (ledgers && ledgerSequence !== undefined) {
    if (ledgers.minLedger > ledgerSequence) return 'txTooEarly';
    if (ledgers.maxLedger !== 0 && ledgers.maxLedger < ledgerSequence) return 'txTooLate';
  }
  const resourceFee = BigInt(parsed.sorobanData.resourceFee().toString());
  if (resourceFee < resourceFeeFor(declaredResources(parsed.sorobanData))) return 'txInsufficientFee';
  if (parsed.declaredFee < feeToCharge(parsed)) return 'txInsufficientFee';
  if (parsed.envelope instanceof FeeBumpTransaction && BigInt(inner.fee) < BigInt(parsed.operationCount) * BASE_FEE) {
    return 'txInsufficientFee';
  }
  if (feeSource.balance - parsed.declaredFee < MINIMUM_BALANCE) return 'txInsufficientBalance';
  return checkSignatures(parsed, state);
}

function checkSignatures(parsed: ParsedEnvelope, state: EntryReader): RejectionCode | undefined {
  const { envelope, inner } = parsed;
  const operationSource = inner.operations[0]?.source;
  const innerSigners = [
    inner.source,
    ...(operationSource && operationSource !== inner.source ? [operationSource] : []),
  ];
  const innerVerdict = verifySigned(inner.hash(), inner.signatures, innerSigners, state);
  if (innerVerdict) return innerVerdict;
  if (envelope instanceof FeeBumpTransaction) {
    return verifySigned(envelope.hash(), envelope.signatures, [envelope.feeSource], state);
  }
  return undefined;
}

/** Every required account must reach its threshold, and every signature must belong to one of them. */
function verifySigned(
  payload: Buffer,
  signatures: readonly xdr.DecoratedSignature[],
  accounts: readonly string[],
  state: EntryReader,
): RejectionCode | undefined {
  const candidates = accounts.flatMap((address) => {
    const account = readAccount(state, address);
    return account ? [address, ...account.signers.map((signer) => signer.key)] : [];
  });
  const verified = new Set<string>();
  for (const signature of signatures) {
    const signer = candidates.find((key) => {
      const keypair = Keypair.fromPublicKey(key);
      return keypair.signatureHint().equals(signature.hint()) && verifies(keypair, key, payload, signature.signature());
    });
    if (!signer) return 'txBadAuth';
    verified.add(signer);
  }
  for (const address of accounts) {
    const account = readAccount(state, address);
    if (!account) return 'txNoAccount';
    if (signingWeight(account, verified) < Math.max(account.thresholds.low, 1)) return 'txBadAuth';
  }
  return undefined;
}

/**
 * Signature checks already made: a queued transaction is checked at submission and again at every close it waits
 * for, and an ed25519 verification costs milliseconds (a storm queues hundreds). A verification's answer depends
 * only on key, payload and signature, so remembering it changes no outcome. Bounded: cleared when full.
 */
const VERIFIED = new Map<string, boolean>();
const MAX_VERIFIED = 50_000;

function verifies(keypair: Keypair, key: string, payload: Buffer, signature: Buffer): boolean {
  const id = `${key}:${payload.toString('base64')}:${signature.toString('base64')}`;
  const known = VERIFIED.get(id);
  if (known !== undefined) return known;
  const verdict = keypair.verify(payload, signature);
  if (VERIFIED.size >= MAX_VERIFIED) VERIFIED.clear();
  VERIFIED.set(id, verdict);
  return verdict;
}
