import { Address, Keypair, StrKey, Transaction, hash, scValToNative, xdr } from '@stellar/stellar-sdk';

/**
 * A payment of the x402 `exact` scheme on Stellar, read from its envelope without any RPC call: the one
 * `transfer(from, to, amount)` invocation and the authorization entries that let it spend the payer's tokens.
 */
export interface ExactTransfer {
  transaction: Transaction;
  source: string;
  operationSource?: string;
  /** Contract invoked; `undefined` when the operation is not a contract call. */
  contract?: string;
  functionName?: string;
  from?: string;
  to?: string;
  amount?: bigint;
  operationCount: number;
  /** Inclusion plus resource fee the client offered, in stroops. */
  fee: bigint;
  authorizations: TransferAuthorization[];
}

export interface TransferAuthorization {
  entry: xdr.SorobanAuthorizationEntry;
  /** The authorizing address; `undefined` for source-account credentials. */
  address?: string;
  nonce?: string;
  expirationLedger?: number;
  signed: boolean;
  hasSubInvocations: boolean;
  /** Whether the root invocation is the operation's own call (same contract, function and arguments). */
  matchesOperation: boolean;
}

/** The exact-scheme rules a payment can break; each maps to one 402 code of the subscription service. */
export type ExactRule =
  | 'wrong_operation'
  | 'wrong_asset'
  | 'wrong_recipient'
  | 'wrong_amount'
  | 'self_transfer'
  | 'sponsor_as_payer'
  | 'unsigned'
  | 'bad_signature'
  | 'unsafe_authorization'
  | 'expired'
  | 'expires_too_late';

export class MalformedTransferError extends Error {
  override readonly name = 'MalformedTransferError';
}

/** Parses a base64 envelope signed (or to be signed) for `passphrase`; throws `MalformedTransferError`. */
export function readExactTransfer(envelope: string, passphrase: string): ExactTransfer {
  let transaction: Transaction;
  try {
    const parsed = new Transaction(envelope, passphrase);
    if (!(parsed instanceof Transaction)) throw new Error('fee bump');
    transaction = parsed;
  } catch {
    throw new MalformedTransferError('payload.transaction is not a base64 transaction envelope');
  }
  const view: ExactTransfer = {
    transaction,
    source: transaction.source,
    operationCount: transaction.operations.length,
    fee: BigInt(transaction.fee),
    authorizations: [],
  };
  const operation = transaction.operations[0];
  if (transaction.operations.length !== 1 || operation.type !== 'invokeHostFunction') return view;
  view.operationSource = operation.source;
  const func = operation.func;
  if (func.switch() !== xdr.HostFunctionType.hostFunctionTypeInvokeContract()) return view;
  const call = func.invokeContract();
  view.contract = Address.fromScAddress(call.contractAddress()).toString();
  view.functionName = call.functionName().toString();
  const args = call.args();
  if (view.functionName === 'transfer' && args.length === 3) {
    try {
      view.from = Address.fromScVal(args[0]).toString();
      view.to = Address.fromScVal(args[1]).toString();
      const amount = scValToNative(args[2]) as unknown;
      view.amount = typeof amount === 'bigint' ? amount : undefined;
    } catch {
      // Arguments of the wrong types: the function check below refuses the call.
      view.from = view.to = view.amount = undefined;
    }
  }
  const callXdr = call.toXDR('base64');
  view.authorizations = (operation.auth ?? []).map((entry) => describeAuthorization(entry, callXdr));
  return view;
}

function describeAuthorization(entry: xdr.SorobanAuthorizationEntry, callXdr: string): TransferAuthorization {
  const root = entry.rootInvocation();
  const fn = root.function();
  const matchesOperation =
    fn.switch() === xdr.SorobanAuthorizedFunctionType.sorobanAuthorizedFunctionTypeContractFn() &&
    fn.contractFn().toXDR('base64') === callXdr;
  const credentials = entry.credentials();
  const base = { entry, hasSubInvocations: root.subInvocations().length > 0, matchesOperation };
  if (credentials.switch() !== xdr.SorobanCredentialsType.sorobanCredentialsAddress()) {
    return { ...base, signed: false };
  }
  const address = credentials.address();
  return {
    ...base,
    address: Address.fromScAddress(address.address()).toString(),
    nonce: address.nonce().toString(),
    expirationLedger: address.signatureExpirationLedger(),
    signed: address.signature().switch() !== xdr.ScValType.scvVoid(),
  };
}

/** The `HashIdPreimage` an address credential signs: network, nonce, expiration and the invocation. */
export function authorizationPreimage(
  entry: xdr.SorobanAuthorizationEntry,
  passphrase: string,
  expirationLedger?: number,
): xdr.HashIdPreimage {
  const address = entry.credentials().address();
  return xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
    new xdr.HashIdPreimageSorobanAuthorization({
      networkId: hash(Buffer.from(passphrase, 'utf8')),
      nonce: address.nonce(),
      signatureExpirationLedger: expirationLedger ?? address.signatureExpirationLedger(),
      invocation: entry.rootInvocation(),
    }),
  );
}

/** Whether `signature` is `signer`'s ed25519 signature of sha256(preimage). */
export function verifyAuthorizationSignature(preimage: xdr.HashIdPreimage, signer: string, signature: Buffer): boolean {
  if (!StrKey.isValidEd25519PublicKey(signer) || signature.length !== 64) return false;
  return Keypair.fromPublicKey(signer).verify(hash(preimage.toXDR()), signature);
}

/** The credential value of an account signature: `[{public_key: bytes32, signature: bytes64}]`. */
export function accountSignatureScVal(signer: string, signature: Buffer): xdr.ScVal {
  return xdr.ScVal.scvVec([
    xdr.ScVal.scvMap([
      new xdr.ScMapEntry({
        key: xdr.ScVal.scvSymbol('public_key'),
        val: xdr.ScVal.scvBytes(StrKey.decodeEd25519PublicKey(signer)),
      }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('signature'), val: xdr.ScVal.scvBytes(signature) }),
    ]),
  ]);
}

/** The signatures carried by an address credential, as (public key, signature) pairs. */
export function credentialSignatures(entry: xdr.SorobanAuthorizationEntry): { signer: string; signature: Buffer }[] {
  const value = entry.credentials().address().signature();
  if (value.switch() !== xdr.ScValType.scvVec()) return [];
  const found: { signer: string; signature: Buffer }[] = [];
  for (const item of value.vec() ?? []) {
    if (item.switch() !== xdr.ScValType.scvMap()) return [];
    let key: Buffer | undefined;
    let signature: Buffer | undefined;
    for (const field of item.map() ?? []) {
      if (field.key().switch() !== xdr.ScValType.scvSymbol() || field.val().switch() !== xdr.ScValType.scvBytes())
        continue;
      const name = field.key().sym().toString();
      if (name === 'public_key') key = field.val().bytes();
      if (name === 'signature') signature = field.val().bytes();
    }
    if (!key || key.length !== 32 || !signature) return [];
    found.push({ signer: StrKey.encodeEd25519PublicKey(key), signature });
  }
  return found;
}

export interface ExactExpectation {
  asset: string;
  payTo: string;
  amount: bigint;
  /** Accounts of the fee sponsor: never the payer, never a source, never in an authorization. */
  sponsors: ReadonlySet<string>;
  passphrase: string;
}

export interface LedgerWindow {
  /** The latest closed ledger; an authorization expiring before it is dead. */
  currentLedger: number;
  /** The latest expiration ledger accepted. */
  maxLedger: number;
}

/**
 * The first exact-scheme rule `transfer` breaks, or `undefined`. Signatures are verified here, locally, against
 * the payer: a payment that fails any static rule never costs an RPC call. Without `window` the expiration
 * rules are left to the caller.
 */
export function brokenExactRule(
  transfer: ExactTransfer,
  expected: ExactExpectation,
  window?: LedgerWindow,
): ExactRule | undefined {
  if (transfer.operationCount !== 1 || transfer.contract === undefined) return 'wrong_operation';
  if (expected.sponsors.has(transfer.source) || expected.sponsors.has(transfer.operationSource ?? '')) {
    return 'sponsor_as_payer';
  }
  if (transfer.contract !== expected.asset) return 'wrong_asset';
  if (transfer.functionName !== 'transfer' || !transfer.from || !transfer.to || transfer.amount === undefined) {
    return 'wrong_operation';
  }
  if (expected.sponsors.has(transfer.from)) return 'sponsor_as_payer';
  if (transfer.to !== expected.payTo) return 'wrong_recipient';
  // transfer(payTo, payTo, amount) passes every other rule and moves nothing.
  if (transfer.from === expected.payTo) return 'self_transfer';
  if (transfer.amount !== expected.amount) return 'wrong_amount';
  return brokenAuthorizationRule(transfer, expected) ?? (window && brokenExpirationRule(transfer, window));
}

function brokenAuthorizationRule(transfer: ExactTransfer, expected: ExactExpectation): ExactRule | undefined {
  if (transfer.authorizations.length === 0) return 'unsigned';
  for (const auth of transfer.authorizations) {
    if (auth.address === undefined || expected.sponsors.has(auth.address)) return 'unsafe_authorization';
    if (auth.hasSubInvocations || !auth.matchesOperation || auth.address !== transfer.from) {
      return 'unsafe_authorization';
    }
    if (!auth.signed) return 'unsigned';
    const signatures = credentialSignatures(auth.entry);
    const preimage = authorizationPreimage(auth.entry, expected.passphrase);
    if (signatures.length !== 1 || !verifyAuthorizationSignature(preimage, auth.address, signatures[0].signature)) {
      return signatures.length === 0 ? 'unsigned' : 'bad_signature';
    }
  }
  return undefined;
}

/**
 * Whether the authorizations are alive now and expire within the allowed window: the one rule that needs the
 * ledger's current sequence, checked after the static ones passed.
 */
export function brokenExpirationRule(transfer: ExactTransfer, window: LedgerWindow): ExactRule | undefined {
  for (const auth of transfer.authorizations) {
    if ((auth.expirationLedger ?? 0) < window.currentLedger) return 'expired';
    if ((auth.expirationLedger ?? 0) > window.maxLedger) return 'expires_too_late';
  }
  return undefined;
}

/** The payer's authorization nonce: with the payer, it identifies a payment for replay protection. */
export function paymentNonce(transfer: ExactTransfer): string | undefined {
  return transfer.authorizations.find((auth) => auth.address === transfer.from)?.nonce;
}
