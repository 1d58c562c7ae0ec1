import { createHash } from 'node:crypto';
import type { xdr } from '@stellar/stellar-sdk';

/** Where a contract keeps a value; the same three storage kinds Soroban offers. */
export type StorageDurability = 'instance' | 'persistent' | 'temporary';

/**
 * What a contract written in TypeScript sees of the host while one of its functions runs. It mirrors the
 * soroban-sdk `Env`: storage, authorization, calls to other contracts, events and contract errors. Everything a
 * function changes is kept only if the whole invocation succeeds.
 */
export interface ContractEnv {
  /** This contract's C-address. */
  readonly address: string;
  /** The contract that called this one, or undefined when the transaction invoked it directly. */
  readonly invoker: string | undefined;
  /** The ledger being closed (or simulated on): sequence and close time in unix seconds. */
  readonly ledger: { readonly sequence: number; readonly timestamp: bigint };
  /** The function being run and its arguments, as the auth rules see them. */
  readonly fnName: string;
  readonly args: readonly xdr.ScVal[];

  get(durability: StorageDurability, key: xdr.ScVal): xdr.ScVal | undefined;
  has(durability: StorageDurability, key: xdr.ScVal): boolean;
  /** Writes a value; `liveUntilLedger` sets the entry's TTL (temporary entries such as allowances use it). */
  set(durability: StorageDurability, key: xdr.ScVal, value: xdr.ScVal, liveUntilLedger?: number): void;
  remove(durability: StorageDurability, key: xdr.ScVal): void;

  /** `address.require_auth()`: authorizes the current function with its own arguments. */
  requireAuth(address: string): void;
  /** `address.require_auth_for_args(args)`. */
  requireAuthForArgs(address: string, args: readonly xdr.ScVal[]): void;

  /** Calls another contract; a failure there aborts this invocation too (as `env.invoke_contract` does). */
  call(contract: string, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal;
  /** Publishes a contract event. */
  emit(topics: readonly xdr.ScVal[], data: xdr.ScVal): void;
  /** `panic_with_error!(env, Error(code))`: aborts with a contract error, e.g. 1205 for Blend's InvalidHf. */
  fail(code: number, message?: string): never;
}

/** One deployed contract's code. Stateless: all state lives in the ledger through `ContractEnv`. */
export interface NativeContract {
  /** Runs `fn`; unknown functions must `env.fail` (the host turns that into a contract error). */
  invoke(env: ContractEnv, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal;
}

/** A kind of contract the sandbox can deploy. Its instance entry names `wasmHash` as the executable. */
export interface NativeContractKind {
  readonly name: string;
  readonly wasmHash: Buffer;
  readonly code: NativeContract;
}

/** The executable hash a native contract kind is registered under: sha256 of a fixed label. */
export function nativeWasmHash(name: string): Buffer {
  return createHash('sha256').update(`rp-sandbox-native-contract:${name}`).digest();
}

export function defineContractKind(name: string, code: NativeContract): NativeContractKind {
  return { name, wasmHash: nativeWasmHash(name), code };
}

/** A contract error raised by `env.fail`: Soroban's `Error(Contract, #code)`. */
export class ContractError extends Error {
  constructor(
    readonly code: number,
    message?: string,
  ) {
    super(message ?? `Error(Contract, #${code})`);
    this.name = 'ContractError';
  }
}
