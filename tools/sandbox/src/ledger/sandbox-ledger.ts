import { EventEmitter } from 'node:events';
import { Address, FeeBumpTransaction, Keypair, Networks, StrKey, hash, xdr } from '@stellar/stellar-sdk';
import { networkIdOf } from './host/authorization';
import { PERSISTENT_TTL } from './host/invocation';
import type { NativeContractKind } from './host/native-contract';
import { feeRate, selectForLedger } from './congestion/surge-pricing';
import { executeHostFunction, type Execution, type ExecutionSettings } from './execution';
import { LedgerHistory, type ClosedLedger, type TransactionRecord } from './ledger-history';
import { applyTransaction } from './transactions/apply';
import {
  MalformedEnvelopeError,
  checkEnvelope,
  parseEnvelope,
  type ParsedEnvelope,
  type RejectionCode,
} from './transactions/envelope';
import { rejectionResult } from './transactions/results';
import {
  accountEntry,
  accountKey,
  contractCodeKey,
  contractDataEntry,
  contractDataKey,
  contractInstanceKey,
  readAccount,
  storedEntry,
  type AccountState,
} from './state/entries';
import { type EntryKey, LedgerState, StateOverlay, entryKeyOf, type StoredEntry } from './state/ledger-state';

export interface SandboxLedgerOptions {
  /** Network passphrase; the sandbox answers as testnet. */
  readonly passphrase?: string;
  /** Clock in milliseconds, for close times. */
  readonly now?: () => number;
  /**
   * Seconds between ledgers of a made-up past: the history starts with 20 empty ledgers that closed this far
   * apart, ending now, so a client measuring the close time (x402's expiration window) reads the configured
   * pace from the first request, as it would on a network that has been running, and a stall while a test starts
   * (ledgers closed late because the process was busy) weighs one ledger in twenty, not one in two. Fractions of
   * a second are allowed. Without it, history starts now.
   */
  readonly historyIntervalSeconds?: number;
  /** Soroban transactions one ledger holds; beyond it surge pricing picks by fee. Default 1000. */
  readonly maxSorobanTransactions?: number;
}

/** Default per-ledger limit of Soroban transactions: far above what any test sends, so nothing waits. */
export const DEFAULT_MAX_SOROBAN_TX = 1000;

/** How many ledgers the made-up past holds: what x402 clients average the close time over. */
const HISTORY_LEDGERS = 20;

export type SubmitOutcome =
  | { readonly status: 'PENDING' | 'DUPLICATE'; readonly hash: string }
  | { readonly status: 'TRY_AGAIN_LATER'; readonly hash: string }
  | {
      readonly status: 'ERROR';
      readonly hash: string;
      readonly code: RejectionCode;
      readonly errorResult: xdr.TransactionResult;
    };

/** The account contracts are deployed from: deterministic addresses for the same salt. */
/**
 * stellar-core's `TRANSACTION_QUEUE_TIMEOUT_LEDGERS` (4) and `TRANSACTION_QUEUE_BAN_LEDGERS` (10): a transaction left
 * out of this many ledgers leaves the queue (the source account may then queue another, e.g. the same one re-signed
 * at a higher fee), and the same hash sent again within the ban answers `TRY_AGAIN_LATER`.
 */
export const QUEUE_TIMEOUT_LEDGERS = 4;
export const QUEUE_BAN_LEDGERS = 10;

const DEPLOYER = Keypair.fromRawEd25519Seed(hash(Buffer.from('rp-sandbox-deployer'))).publicKey();

/**
 * The sandbox ledger: committed state, the queue of accepted transactions and the ledger history. Transactions
 * enter through `submit` (validated as stellar-core would), wait in the queue and are applied when `closeLedger`
 * runs, on a timer or on demand.
 */
export class SandboxLedger extends EventEmitter<{ close: [ClosedLedger] }> {
  readonly passphrase: string;
  readonly networkId: Buffer;
  private readonly now: () => number;
  private readonly state = new LedgerState();
  private readonly kinds = new Map<string, NativeContractKind>();
  private readonly queue: ParsedEnvelope[] = [];
  /** The first ledger each queued transaction could enter. */
  private readonly firstChance = new WeakMap<ParsedEnvelope, number>();
  /** Hashes that timed out of the queue, and the last ledger of their ban. */
  private readonly banned = new Map<string, number>();
  private records: LedgerHistory;
  /** Contract events of setup calls (`invokePrivileged`) waiting for the next ledger, as base64 XDR. */
  private readonly setupEvents: string[] = [];
  private readonly historyInterval: number;
  /** Soroban transactions one ledger holds (`SANDBOX_LEDGER_MAX_SOROBAN_TX`, control API). */
  maxSorobanTransactions: number;

  constructor(options: SandboxLedgerOptions = {}) {
    super();
    this.passphrase = options.passphrase ?? Networks.TESTNET;
    this.networkId = networkIdOf(this.passphrase);
    this.now = options.now ?? Date.now;
    this.historyInterval = Math.max(0, options.historyIntervalSeconds ?? 0);
    this.maxSorobanTransactions = options.maxSorobanTransactions ?? DEFAULT_MAX_SOROBAN_TX;
    this.records = this.freshHistory();
  }

  private freshHistory(): LedgerHistory {
    const now = this.nowSeconds();
    if (this.historyInterval === 0) return new LedgerHistory(now);
    // Close times are whole seconds: a pace under a second spreads the past over the seconds it would have taken.
    const span = Math.ceil(this.historyInterval * (HISTORY_LEDGERS - 1));
    const genesis = now - BigInt(span);
    const history = new LedgerHistory(genesis);
    for (let i = 1; i < HISTORY_LEDGERS; i += 1) {
      history.close(genesis + BigInt(Math.floor(i * this.historyInterval)), []);
    }
    return history;
  }

  get latest(): ClosedLedger {
    return this.records.latest;
  }

  get oldest(): ClosedLedger {
    return this.records.oldest;
  }

  get pendingCount(): number {
    return this.queue.length;
  }

  /** The transactions waiting for a ledger, in arrival order. */
  get queued(): readonly ParsedEnvelope[] {
    return this.queue;
  }

  /** Takes the queued transactions the predicate picks out of the queue (a storm that stops); returns how many. */
  withdraw(picked: (parsed: ParsedEnvelope) => boolean): number {
    const kept = this.queue.filter((parsed) => !picked(parsed));
    const removed = this.queue.length - kept.length;
    this.queue.splice(0, this.queue.length, ...kept);
    return removed;
  }

  recentLedgers(count: number): readonly ClosedLedger[] {
    return this.records.recentLedgers(count);
  }

  /** Closed ledgers, applied transactions and their events. */
  get history(): LedgerHistory {
    return this.records;
  }

  /** Creates the account with `stroops` of the native asset, or adds them to an existing account. */
  fundAccount(address: string, stroops: bigint): AccountState {
    if (!StrKey.isValidEd25519PublicKey(address)) throw new Error(`not an account address: ${address}`);
    const existing = readAccount(this.state, address);
    const account: AccountState = existing
      ? { ...existing, balance: existing.balance + stroops }
      : {
          address,
          balance: stroops,
          sequence: BigInt(this.latest.sequence) << 32n,
          masterWeight: 1,
          thresholds: { low: 0, medium: 0, high: 0 },
          signers: [],
        };
    this.state.put(accountKey(address), storedEntry(accountEntry(account), this.latest.sequence));
    return account;
  }

  account(address: string): AccountState | undefined {
    return readAccount(this.state, address);
  }

  /** Deploys a native contract at the address the real network derives from the deployer and salt (or a given one). */
  deployContract(
    kind: NativeContractKind,
    options: { salt?: string; address?: string; constructorArgs?: readonly xdr.ScVal[] } = {},
  ): string {
    const salt = hash(Buffer.from(options.salt ?? `${kind.name}:${this.state.size}`));
    const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
      new xdr.HashIdPreimageContractId({
        networkId: this.networkId,
        contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
          new xdr.ContractIdPreimageFromAddress({ address: new Address(DEPLOYER).toScAddress(), salt }),
        ),
      }),
    );
    // A fixed address lets the sandbox stand in for a known contract, e.g. the network's USDC.
    const address = options.address ?? StrKey.encodeContract(hash(preimage.toXDR()));
    if (this.state.get(contractInstanceKey(address))) throw new Error(`contract ${address} already exists`);
    this.kinds.set(kind.wasmHash.toString('hex'), kind);
    const sequence = this.latest.sequence;
    const liveUntil = sequence + PERSISTENT_TTL;
    const code = xdr.LedgerEntryData.contractCode(
      new xdr.ContractCodeEntry({
        ext: new xdr.ContractCodeEntryExt(0),
        hash: kind.wasmHash,
        code: Buffer.from(kind.name),
      }),
    );
    this.state.put(contractCodeKey(kind.wasmHash), storedEntry(code, sequence, liveUntil));
    const instance = xdr.ScVal.scvContractInstance(
      new xdr.ScContractInstance({
        executable: xdr.ContractExecutable.contractExecutableWasm(kind.wasmHash),
        storage: [],
      }),
    );
    const entry = contractDataEntry(address, xdr.ScVal.scvLedgerKeyContractInstance(), 'persistent', instance);
    this.state.put(contractInstanceKey(address), storedEntry(entry, sequence, liveUntil));
    if (options.constructorArgs) this.invokePrivileged(address, '__constructor', options.constructorArgs);
    return address;
  }

  /** A contract call outside any transaction in which every authorization passes: sandbox setup only. */
  invokePrivileged(contract: string, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    const overlay = new StateOverlay(this.state);
    const execution = executeHostFunction(
      overlay,
      invokeContract(contract, fn, args),
      [],
      this.settings(undefined),
      'privileged',
    );
    if (execution.error) throw execution.error;
    overlay.commitTo(this.state);
    this.setupEvents.push(...execution.events.map((event) => event.toXDR('base64')));
    return execution.returnValue ?? xdr.ScVal.scvVoid();
  }

  /**
   * Writes persistent contract data straight into the state, outside any contract call: bulk seeding for
   * benchmarks only (tens of thousands of positions in a second). No event is published and nothing else changes.
   */
  seedContractData(contract: string, entries: readonly (readonly [xdr.ScVal, xdr.ScVal])[]): void {
    const sequence = this.latest.sequence;
    for (const [key, val] of entries) {
      const data = contractDataEntry(contract, key, 'persistent', val);
      this.state.put(
        contractDataKey(contract, key, 'persistent'),
        storedEntry(data, sequence, sequence + PERSISTENT_TTL),
      );
    }
  }

  /** A read-only call on committed state (no authorization passes, nothing is kept). */
  view(contract: string, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    const execution = executeHostFunction(
      new StateOverlay(this.state),
      invokeContract(contract, fn, args),
      [],
      this.settings(undefined),
    );
    if (execution.error) throw execution.error;
    return execution.returnValue ?? xdr.ScVal.scvVoid();
  }

  /** A live entry by its key, or by the key's base64 XDR (what `getLedgerEntries` receives: no decoding). */
  entry(key: xdr.LedgerKey | EntryKey): StoredEntry | undefined {
    const stored = this.state.get(typeof key === 'string' ? key : entryKeyOf(key));
    if (stored?.liveUntil !== undefined && stored.liveUntil < this.latest.sequence) return undefined;
    return stored;
  }

  /** `sendTransaction`: validates against the current state and queues for the next ledger. */
  submit(envelopeXdr: string): SubmitOutcome {
    const parsed = parseEnvelope(envelopeXdr, this.passphrase);
    if (this.records.transaction(parsed.hash) || this.queue.some((queued) => queued.hash === parsed.hash)) {
      return { status: 'DUPLICATE', hash: parsed.hash };
    }
    // Like stellar-core, one transaction per source account waits in the queue at a time, unless the newcomer
    // replaces it by fee: a fee bump of the same inner transaction bidding at least 10x its rate. A hash that timed
    // out of the queue is banned for a while.
    const ban = this.banned.get(parsed.hash);
    const waiting = this.queue.findIndex((queued) => queued.inner.source === parsed.inner.source);
    if (
      (ban !== undefined && ban > this.latest.sequence) ||
      (waiting >= 0 && !replacesByFee(this.queue[waiting], parsed))
    ) {
      return { status: 'TRY_AGAIN_LATER', hash: parsed.hash };
    }
    const code = checkEnvelope(parsed, this.state, this.nextCloseTime(), this.latest.sequence + 1);
    if (code) return { status: 'ERROR', hash: parsed.hash, code, errorResult: rejectionResult(code) };
    if (waiting >= 0) this.queue.splice(waiting, 1, parsed);
    else this.queue.push(parsed);
    this.firstChance.set(parsed, this.latest.sequence + 1);
    return { status: 'PENDING', hash: parsed.hash };
  }

  /** `simulateTransaction` on the next ledger: never changes state. */
  simulate(envelopeXdr: string): Execution {
    const parsed = parseEnvelope(envelopeXdr, this.passphrase);
    if (!parsed.hostFunction || parsed.operationCount !== 1) {
      throw new MalformedEnvelopeError('a simulated transaction must hold exactly one invokeHostFunction operation');
    }
    const source = parsed.inner.operations[0].source ?? parsed.inner.source;
    return executeHostFunction(new StateOverlay(this.state), parsed.hostFunction, parsed.auth, this.settings(source));
  }

  /** The hash a submitted envelope is known by. */
  hashOf(envelopeXdr: string): string {
    return parseEnvelope(envelopeXdr, this.passphrase).hash;
  }

  transaction(hash: string): TransactionRecord | undefined {
    return this.records.transaction(hash);
  }

  /**
   * Closes the next ledger. Queued transactions no longer valid (their `maxTime` or `maxLedger` passed) are dropped,
   * as core drops them; up to `maxSorobanTransactions` of the rest are applied, picked by surge pricing when more
   * wait (highest bid per operation first, ties by arrival), each charged the lane's base fee; the others stay queued.
   */
  closeLedger(): ClosedLedger {
    const closeTime = this.nextCloseTime();
    const sequence = this.latest.sequence + 1;
    const valid = this.queue.filter((parsed) => !checkEnvelope(parsed, this.state, closeTime, sequence));
    const { included, waiting, baseFee } = selectForLedger(valid, this.maxSorobanTransactions);
    this.queue.splice(0, this.queue.length, ...this.notTimedOut(waiting, sequence));
    const applied: TransactionRecord[] = [];
    for (const parsed of included) {
      if (checkEnvelope(parsed, this.state, closeTime, sequence)) continue; // invalidated by an earlier one
      const record = applyTransaction(this.state, parsed, {
        ...this.settings(parsed.inner.operations[0].source ?? parsed.inner.source),
        sequence,
        timestamp: closeTime,
        applicationOrder: applied.length + 1,
        baseFee,
      });
      applied.push(record);
    }
    const ledger = this.records.close(closeTime, applied, this.setupEvents.splice(0));
    this.emit('close', ledger);
    return ledger;
  }

  /** The waiting transactions left out of fewer than `QUEUE_TIMEOUT_LEDGERS` ledgers; the others are banned. */
  private notTimedOut(waiting: readonly ParsedEnvelope[], sequence: number): ParsedEnvelope[] {
    for (const [hash, until] of this.banned) if (until <= sequence) this.banned.delete(hash);
    return waiting.filter((parsed) => {
      const timedOut = sequence - (this.firstChance.get(parsed) ?? sequence) + 1 >= QUEUE_TIMEOUT_LEDGERS;
      if (timedOut) this.banned.set(parsed.hash, sequence + QUEUE_BAN_LEDGERS);
      return !timedOut;
    });
  }

  /** Forgets everything: state, queue, history. Registered contract kinds stay known. */
  reset(): void {
    this.state.clear();
    this.queue.length = 0;
    this.banned.clear();
    this.setupEvents.length = 0;
    this.records = this.freshHistory();
  }

  private settings(sourceAccount: string | undefined): ExecutionSettings {
    return {
      networkId: this.networkId,
      sequence: this.latest.sequence + 1,
      timestamp: this.nextCloseTime(),
      kinds: this.kinds,
      sourceAccount,
    };
  }

  private nextCloseTime(): bigint {
    const now = this.nowSeconds();
    return now > this.latest.closeTime ? now : this.latest.closeTime;
  }

  private nowSeconds(): bigint {
    return BigInt(Math.floor(this.now() / 1000));
  }
}

function invokeContract(contract: string, fn: string, args: readonly xdr.ScVal[]): xdr.HostFunction {
  return xdr.HostFunction.hostFunctionTypeInvokeContract(
    new xdr.InvokeContractArgs({
      contractAddress: new Address(contract).toScAddress(),
      functionName: fn,
      args: [...args],
    }),
  );
}

/** stellar-core's `FEE_MULTIPLIER`: a replacement bids at least this many times the queued rate. */
const REPLACE_BY_FEE_MULTIPLIER = 10n;

/**
 * Whether `newcomer` replaces `queued` in the queue, as stellar-core's `canReplaceByFee` decides: a fee bump of the
 * same inner transaction whose inclusion fee per operation is at least 10x the queued one's. Only one of them can
 * ever apply (the same inner transaction, the same sequence number).
 */
function replacesByFee(queued: ParsedEnvelope, newcomer: ParsedEnvelope): boolean {
  if (!(newcomer.envelope instanceof FeeBumpTransaction) || newcomer.innerHash !== queued.innerHash) return false;
  return feeRate(newcomer) >= REPLACE_BY_FEE_MULTIPLIER * feeRate(queued);
}
