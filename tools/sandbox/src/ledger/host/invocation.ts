import { Address, StrKey, xdr } from '@stellar/stellar-sdk';
import {
  contractCodeKey,
  contractDataEntry,
  contractDataKey,
  contractInstanceKey,
  storedEntry,
} from '../state/entries';
import type { StateOverlay, StoredEntry } from '../state/ledger-state';
import { AuthorizationManager, type AuthContext, type FrameAuth } from './authorization';
import { HostError, asHostError } from './host-error';
import { ContractError, type ContractEnv, type NativeContractKind, type StorageDurability } from './native-contract';

/** Persistent entries written by a contract live this many ledgers (about 30 days of 5 s ledgers). */
export const PERSISTENT_TTL = 518_400;
/** Temporary entries written without an explicit TTL. */
export const TEMPORARY_TTL = 17_280;
const MAX_CALL_DEPTH = 32;

export interface InvocationContext extends AuthContext {
  readonly timestamp: bigint;
  readonly kinds: ReadonlyMap<string, NativeContractKind>;
  readonly auth: AuthorizationManager;
}

interface Frame {
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  readonly invoker: string | undefined;
  readonly auth: FrameAuth;
}

/**
 * One host function invocation: runs native contracts frame by frame against a transaction's state overlay,
 * applying the auth rules and collecting contract events. A thrown error aborts the whole invocation; the caller
 * discards the overlay.
 */
export class HostInvocation {
  readonly events: xdr.ContractEvent[] = [];
  /** Contract calls made, the measure the sandbox's instruction model charges. */
  calls = 0;
  private readonly stack: Frame[] = [];

  constructor(private readonly context: InvocationContext) {}

  invoke(contract: string, fn: string, args: readonly xdr.ScVal[], invoker?: string): xdr.ScVal {
    if (this.stack.length >= MAX_CALL_DEPTH) throw HostError.of('Context', 'ExceededLimit', 'call depth exceeded');
    const kind = this.kindOf(contract);
    this.calls += 1;
    const frame: Frame = { contract, fn, args, invoker, auth: new Map() };
    this.stack.push(frame);
    try {
      return kind.code.invoke(this.envFor(frame), fn, args);
    } catch (error) {
      if (error instanceof ContractError) throw HostError.contract(error.code, contract, error.message);
      throw asHostError(error, contract);
    } finally {
      this.stack.pop();
    }
  }

  private kindOf(contract: string): NativeContractKind {
    if (!StrKey.isValidContract(contract)) {
      throw HostError.of('Value', 'InvalidInput', `not a contract address: ${contract}`);
    }
    const instance = this.context.state.get(contractInstanceKey(contract));
    if (!instance) throw HostError.of('Storage', 'MissingValue', `contract ${contract} does not exist`);
    const hash = instance.data.contractData().val().instance().executable().wasmHash().toString('hex');
    // The code entry is read as the real host reads the Wasm, so it lands in the footprint.
    this.context.state.get(contractCodeKey(Buffer.from(hash, 'hex')));
    const kind = this.context.kinds.get(hash);
    if (!kind) throw HostError.of('Storage', 'MissingValue', `no code for contract ${contract}`);
    return kind;
  }

  private envFor(frame: Frame): ContractEnv {
    const { context } = this;
    const storage = new ContractStorage(context.state, frame.contract, context.ledgerSequence);
    return {
      address: frame.contract,
      invoker: frame.invoker,
      ledger: { sequence: context.ledgerSequence, timestamp: context.timestamp },
      fnName: frame.fn,
      args: frame.args,
      get: (durability, key) => storage.get(durability, key),
      has: (durability, key) => storage.get(durability, key) !== undefined,
      set: (durability, key, value, liveUntil) => storage.set(durability, key, value, liveUntil),
      remove: (durability, key) => storage.remove(durability, key),
      requireAuth: (address) => this.requireAuth(frame, address, frame.args),
      requireAuthForArgs: (address, args) => this.requireAuth(frame, address, args),
      call: (contract, fn, args) => this.invoke(contract, fn, args, frame.contract),
      emit: (topics, data) => this.emit(frame.contract, topics, data),
      fail: (code, message) => {
        throw new ContractError(code, message);
      },
    };
  }

  private requireAuth(frame: Frame, address: string, args: readonly xdr.ScVal[]): void {
    const ancestors = this.stack
      .slice(0, -1)
      .reverse()
      .map((f) => f.auth);
    const call = { contract: frame.contract, fn: frame.fn, args };
    this.context.auth.require(this.context, address, call, frame.invoker, ancestors, frame.auth);
  }

  private emit(contract: string, topics: readonly xdr.ScVal[], data: xdr.ScVal): void {
    this.events.push(
      new xdr.ContractEvent({
        ext: new xdr.ExtensionPoint(0),
        contractId: new Address(contract).toScAddress().contractId(),
        type: xdr.ContractEventType.contract(),
        body: new xdr.ContractEventBody(0, new xdr.ContractEventV0({ topics: [...topics], data })),
      }),
    );
  }
}

/** A contract's three storage kinds over the overlay; instance storage lives inside the instance entry's map. */
class ContractStorage {
  constructor(
    private readonly state: StateOverlay,
    private readonly contract: string,
    private readonly sequence: number,
  ) {}

  get(durability: StorageDurability, key: xdr.ScVal): xdr.ScVal | undefined {
    if (durability === 'instance') {
      const wanted = key.toXDR('base64');
      return this.instanceStorage()
        .find((entry) => entry.key().toXDR('base64') === wanted)
        ?.val();
    }
    const stored = this.state.get(contractDataKey(this.contract, key, durability));
    if (!stored || (stored.liveUntil !== undefined && stored.liveUntil < this.sequence)) return undefined;
    return stored.data.contractData().val();
  }

  set(durability: StorageDurability, key: xdr.ScVal, value: xdr.ScVal, liveUntil?: number): void {
    if (durability === 'instance') {
      const wanted = key.toXDR('base64');
      const others = this.instanceStorage().filter((entry) => entry.key().toXDR('base64') !== wanted);
      this.writeInstance([...others, new xdr.ScMapEntry({ key, val: value })]);
      return;
    }
    const entryKey = contractDataKey(this.contract, key, durability);
    const previous = this.state.get(entryKey);
    const ttl = durability === 'temporary' ? TEMPORARY_TTL : PERSISTENT_TTL;
    const until = liveUntil ?? Math.max(previous?.liveUntil ?? 0, this.sequence + ttl);
    this.state.put(
      entryKey,
      storedEntry(contractDataEntry(this.contract, key, durability, value), this.sequence, until),
    );
  }

  remove(durability: StorageDurability, key: xdr.ScVal): void {
    if (durability === 'instance') {
      const wanted = key.toXDR('base64');
      this.writeInstance(this.instanceStorage().filter((entry) => entry.key().toXDR('base64') !== wanted));
      return;
    }
    this.state.delete(contractDataKey(this.contract, key, durability));
  }

  private instanceEntry(): StoredEntry {
    const stored = this.state.get(contractInstanceKey(this.contract));
    if (!stored) throw HostError.of('Storage', 'MissingValue', `contract ${this.contract} does not exist`);
    return stored;
  }

  private instanceStorage(): xdr.ScMapEntry[] {
    return this.instanceEntry().data.contractData().val().instance().storage() ?? [];
  }

  private writeInstance(storage: xdr.ScMapEntry[]): void {
    const previous = this.instanceEntry();
    const instance = previous.data.contractData().val().instance();
    const sorted = [...storage].sort((a, b) => compareKeys(a.key(), b.key()));
    const value = xdr.ScVal.scvContractInstance(
      new xdr.ScContractInstance({ executable: instance.executable(), storage: sorted }),
    );
    this.state.put(
      contractInstanceKey(this.contract),
      storedEntry(
        contractDataEntry(this.contract, xdr.ScVal.scvLedgerKeyContractInstance(), 'persistent', value),
        this.sequence,
        previous.liveUntil,
      ),
    );
  }
}

/** Soroban keeps map keys ordered; symbols and strings compare by text, everything else by its XDR. */
function compareKeys(a: xdr.ScVal, b: xdr.ScVal): number {
  const text = (v: xdr.ScVal) => (v.switch().name === 'scvSymbol' ? v.sym().toString() : undefined);
  const [ta, tb] = [text(a), text(b)];
  if (ta !== undefined && tb !== undefined) return ta < tb ? -1 : ta > tb ? 1 : 0;
  return Buffer.compare(a.toXDR(), b.toXDR());
}
