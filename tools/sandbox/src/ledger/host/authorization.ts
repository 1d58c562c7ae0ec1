import { createHash, randomBytes } from 'node:crypto';
import { Address, Keypair, StrKey, hash, xdr } from '@stellar/stellar-sdk';
import { readAccount, signingWeight, contractDataKey, contractDataEntry, storedEntry } from '../state/entries';
import type { StateOverlay } from '../state/ledger-state';
import { HostError } from './host-error';

/** The call being authorized: a contract function with the arguments `require_auth` covers. */
export interface AuthorizedCall {
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/** Per-frame record of which authorization node covered which address, so nested calls can match sub-invocations. */
export type FrameAuth = Map<string, AuthNode>;

export interface AuthContext {
  readonly state: StateOverlay;
  readonly ledgerSequence: number;
  readonly networkId: Buffer;
  /** The transaction's source account: its own signature authorizes it (source-account credentials). */
  readonly sourceAccount: string | undefined;
}

interface AuthNode {
  readonly call: AuthorizedCall;
  readonly children: AuthNode[];
  /** Enforcing mode: the signed tree this node came from, and which of its children were used. */
  readonly signed?: xdr.SorobanAuthorizedInvocation;
  readonly usedChildren: Set<number>;
}

interface SignedEntry {
  readonly entry: xdr.SorobanAuthorizationEntry;
  readonly address: string;
  used: boolean;
}

interface RecordedEntry {
  readonly address: string;
  readonly root: AuthNode;
  readonly nonce: bigint;
}

/** The maximum lifetime of a signature, in ledgers (the network's max entry TTL). */
const MAX_SIGNATURE_LIFETIME = 3_110_400;

/**
 * Soroban's authorization rules. In enforcing mode every `require_auth` must match a signed entry whose root or
 * sub-invocation equals the call, whose signature verifies over the authorization preimage, whose nonce is unused
 * and whose expiration ledger has not passed. In recording mode (simulation without auth) it records the tree the
 * client must sign.
 */
export class AuthorizationManager {
  private readonly signed: SignedEntry[];
  private readonly recorded: RecordedEntry[] = [];

  private constructor(
    private readonly mode: 'enforce' | 'record' | 'privileged',
    entries: readonly xdr.SorobanAuthorizationEntry[],
  ) {
    this.signed = entries.map((entry) => ({ entry, address: credentialAddress(entry), used: false }));
  }

  static enforcing(entries: readonly xdr.SorobanAuthorizationEntry[]): AuthorizationManager {
    return new AuthorizationManager('enforce', entries);
  }

  static recording(): AuthorizationManager {
    return new AuthorizationManager('record', []);
  }

  /** Sandbox setup calls (control API): every authorization passes. */
  static privileged(): AuthorizationManager {
    return new AuthorizationManager('privileged', []);
  }

  get isRecording(): boolean {
    return this.mode === 'record';
  }

  /**
   * `address.require_auth_for_args(args)` inside `call`; `invoker` is the calling contract (a contract authorizes
   * its direct calls implicitly); `ancestors` are the enclosing frames' authorization records, nearest first.
   */
  require(
    context: AuthContext,
    address: string,
    call: AuthorizedCall,
    invoker: string | undefined,
    ancestors: readonly FrameAuth[],
    frame: FrameAuth,
  ): void {
    if (this.mode === 'privileged' || (invoker !== undefined && invoker === address)) return;
    const parent = ancestors.map((auth) => auth.get(address)).find((node) => node !== undefined);
    if (this.mode === 'record') {
      frame.set(address, this.record(address, call, parent));
      return;
    }
    const node = (parent && matchChild(parent, call)) ?? this.matchRoot(context, address, call);
    if (!node) {
      throw HostError.of('Auth', 'InvalidAction', `Unauthorized function call for address ${address}`);
    }
    frame.set(address, node);
  }

  /** Recorded entries as simulation returns them: unsigned address credentials, or source-account credentials. */
  recordedEntries(context: Pick<AuthContext, 'sourceAccount'>): xdr.SorobanAuthorizationEntry[] {
    return this.recorded.map(({ address, root, nonce }) => {
      const credentials =
        address === context.sourceAccount
          ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
          : xdr.SorobanCredentials.sorobanCredentialsAddress(
              new xdr.SorobanAddressCredentials({
                address: new Address(address).toScAddress(),
                nonce: xdr.Int64.fromString(nonce.toString()),
                signatureExpirationLedger: 0,
                signature: xdr.ScVal.scvVoid(),
              }),
            );
      return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: toInvocation(root) });
    });
  }

  /** Nonce entries the recorded signatures will consume: the real host puts them in the read-write footprint. */
  recordedNonceKeys(context: Pick<AuthContext, 'sourceAccount'>): string[] {
    return this.recorded
      .filter(({ address }) => address !== context.sourceAccount)
      .map(({ address, nonce }) => nonceKey(address, nonce));
  }

  private record(address: string, call: AuthorizedCall, parent: AuthNode | undefined): AuthNode {
    const node: AuthNode = { call, children: [], usedChildren: new Set() };
    if (parent) {
      parent.children.push(node);
      return node;
    }
    this.recorded.push({ address, root: node, nonce: randomBytes(8).readBigInt64BE() });
    return node;
  }

  private matchRoot(context: AuthContext, address: string, call: AuthorizedCall): AuthNode | undefined {
    for (const candidate of this.signed) {
      if (candidate.used) continue;
      const isSource = candidate.address === '' && address === context.sourceAccount;
      if (candidate.address !== address && !isSource) continue;
      const root = candidate.entry.rootInvocation();
      if (!invocationMatches(root, call)) continue;
      candidate.used = true;
      if (!isSource) this.verifyCredentials(context, address, candidate.entry);
      return { call, children: [], signed: root, usedChildren: new Set() };
    }
    return undefined;
  }

  private verifyCredentials(context: AuthContext, address: string, entry: xdr.SorobanAuthorizationEntry): void {
    const credentials = entry.credentials().address();
    const expiration = credentials.signatureExpirationLedger();
    if (expiration < context.ledgerSequence) {
      throw HostError.of('Auth', 'InvalidAction', `signature has expired (expiration ledger ${expiration})`);
    }
    if (expiration > context.ledgerSequence + MAX_SIGNATURE_LIFETIME) {
      throw HostError.of('Auth', 'InvalidAction', 'signature expiration is too far in the future');
    }
    const nonce = BigInt(credentials.nonce().toString());
    const key = nonceKey(address, nonce);
    if (context.state.get(key)) {
      throw HostError.of('Auth', 'ExistingValue', `nonce already exists for address ${address}`);
    }
    verifySignature(context, address, entry, credentials);
    const nonceScVal = xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: credentials.nonce() }));
    context.state.put(
      key,
      storedEntry(
        contractDataEntry(address, nonceScVal, 'temporary', xdr.ScVal.scvVoid()),
        context.ledgerSequence,
        expiration,
      ),
    );
  }
}

function verifySignature(
  context: AuthContext,
  address: string,
  entry: xdr.SorobanAuthorizationEntry,
  credentials: xdr.SorobanAddressCredentials,
): void {
  if (!StrKey.isValidEd25519PublicKey(address)) {
    throw HostError.of('Auth', 'InvalidAction', `custom account contracts are not supported: ${address}`);
  }
  const account = readAccount(context.state, address);
  if (!account) throw HostError.of('Storage', 'MissingValue', `account ${address} does not exist`);
  const payload = hash(
    xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
      new xdr.HashIdPreimageSorobanAuthorization({
        networkId: context.networkId,
        nonce: credentials.nonce(),
        signatureExpirationLedger: credentials.signatureExpirationLedger(),
        invocation: entry.rootInvocation(),
      }),
    ).toXDR(),
  );
  const signers: string[] = [];
  const signatures = credentials.signature();
  if (signatures.switch().name !== 'scvVec' || !signatures.vec()?.length) {
    throw HostError.of('Auth', 'InvalidAction', `missing signature for address ${address}`);
  }
  for (const item of signatures.vec() ?? []) {
    const fields = new Map((item.map() ?? []).map((field) => [field.key().sym().toString(), field.val()]));
    const publicKey = fields.get('public_key')?.bytes();
    const signature = fields.get('signature')?.bytes();
    if (!publicKey || publicKey.length !== 32 || !signature || signature.length !== 64) {
      throw HostError.of('Auth', 'InvalidInput', 'malformed account signature');
    }
    const signer = StrKey.encodeEd25519PublicKey(publicKey);
    if (!Keypair.fromPublicKey(signer).verify(payload, signature)) {
      throw HostError.of(
        'Auth',
        'InvalidAction',
        `failed account authentication with error: signature verification failed`,
      );
    }
    signers.push(signer);
  }
  const threshold = Math.max(account.thresholds.medium, 1);
  if (signingWeight(account, signers) < threshold) {
    throw HostError.of('Auth', 'InvalidAction', `signature weight is lower than threshold for ${address}`);
  }
}

export function nonceKey(address: string, nonce: bigint): string {
  return contractDataKey(
    address,
    xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: xdr.Int64.fromString(nonce.toString()) })),
    'temporary',
  );
}

function credentialAddress(entry: xdr.SorobanAuthorizationEntry): string {
  const credentials = entry.credentials();
  if (credentials.switch().name === 'sorobanCredentialsSourceAccount') return '';
  return Address.fromScAddress(credentials.address().address()).toString();
}

function matchChild(parent: AuthNode, call: AuthorizedCall): AuthNode | undefined {
  const subs = parent.signed?.subInvocations() ?? [];
  for (let index = 0; index < subs.length; index += 1) {
    if (parent.usedChildren.has(index) || !invocationMatches(subs[index], call)) continue;
    parent.usedChildren.add(index);
    return { call, children: [], signed: subs[index], usedChildren: new Set() };
  }
  return undefined;
}

function invocationMatches(invocation: xdr.SorobanAuthorizedInvocation, call: AuthorizedCall): boolean {
  const fn = invocation.function();
  if (fn.switch().name !== 'sorobanAuthorizedFunctionTypeContractFn') return false;
  const args = fn.contractFn();
  if (Address.fromScAddress(args.contractAddress()).toString() !== call.contract) return false;
  if (args.functionName().toString() !== call.fn) return false;
  const expected = args.args();
  return expected.length === call.args.length && expected.every((arg, i) => sameScVal(arg, call.args[i]));
}

function toInvocation(node: AuthNode): xdr.SorobanAuthorizedInvocation {
  return new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({
        contractAddress: new Address(node.call.contract).toScAddress(),
        functionName: node.call.fn,
        args: [...node.call.args],
      }),
    ),
    subInvocations: node.children.map(toInvocation),
  });
}

export function sameScVal(a: xdr.ScVal, b: xdr.ScVal): boolean {
  return a.toXDR().equals(b.toXDR());
}

export function networkIdOf(passphrase: string): Buffer {
  return createHash('sha256').update(passphrase).digest();
}
