import { Address, nativeToScVal, scValToNative, xdr } from '@stellar/stellar-sdk';

/**
 * Small, strict ScVal codecs for Soroban `#[contracttype]` values. Readers throw on a type mismatch instead of
 * coercing, so a layout drift between us and the contract surfaces at the first read.
 */

export const scU32 = (value: number): xdr.ScVal => xdr.ScVal.scvU32(value);
export const scI128 = (value: bigint): xdr.ScVal => nativeToScVal(value, { type: 'i128' });
export const scU64 = (value: bigint): xdr.ScVal => nativeToScVal(value, { type: 'u64' });
export const scBool = (value: boolean): xdr.ScVal => xdr.ScVal.scvBool(value);
export const scSymbol = (value: string): xdr.ScVal => xdr.ScVal.scvSymbol(value);
export const scString = (value: string): xdr.ScVal => xdr.ScVal.scvString(value);
export const scAddress = (value: string): xdr.ScVal => new Address(value).toScVal();

export const scVec = (items: readonly xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec([...items]);

/** A Soroban struct: an `scvMap` whose symbol keys are sorted by name (the host rejects unsorted maps). */
export function scStruct(fields: Readonly<Record<string, xdr.ScVal>>): xdr.ScVal {
  const names = Object.keys(fields).sort();
  return xdr.ScVal.scvMap(names.map((name) => new xdr.ScMapEntry({ key: scSymbol(name), val: fields[name] })));
}

/** A Soroban enum variant: `scvVec([Symbol(variant), ...fields])`. */
export function scEnum(variant: string, ...fields: xdr.ScVal[]): xdr.ScVal {
  return xdr.ScVal.scvVec([scSymbol(variant), ...fields]);
}

/** A `Map<u32, i128>` with keys in ascending order, as the host sorts them. */
export function scU32I128Map(map: ReadonlyMap<number, bigint>): xdr.ScVal {
  const keys = [...map.keys()].sort((a, b) => a - b);
  return xdr.ScVal.scvMap(keys.map((k) => new xdr.ScMapEntry({ key: scU32(k), val: scI128(map.get(k) ?? 0n) })));
}

function typeName(value: xdr.ScVal): string {
  return value.switch().name;
}

function expectType(value: xdr.ScVal, expected: string, what: string): void {
  if (typeName(value) !== expected) throw new TypeError(`${what}: expected ${expected}, got ${typeName(value)}`);
}

export function readU32(value: xdr.ScVal, what = 'u32'): number {
  expectType(value, 'scvU32', what);
  return value.u32();
}

export function readI128(value: xdr.ScVal, what = 'i128'): bigint {
  expectType(value, 'scvI128', what);
  return scValToNative(value) as bigint;
}

export function readU64(value: xdr.ScVal, what = 'u64'): bigint {
  expectType(value, 'scvU64', what);
  return scValToNative(value) as bigint;
}

export function readBool(value: xdr.ScVal, what = 'bool'): boolean {
  expectType(value, 'scvBool', what);
  return value.b();
}

export function readAddress(value: xdr.ScVal, what = 'address'): string {
  expectType(value, 'scvAddress', what);
  return Address.fromScVal(value).toString();
}

export function readSymbol(value: xdr.ScVal, what = 'symbol'): string {
  expectType(value, 'scvSymbol', what);
  return value.sym().toString();
}

export function readString(value: xdr.ScVal, what = 'string'): string {
  expectType(value, 'scvString', what);
  return value.str().toString();
}

export function readVec(value: xdr.ScVal, what = 'vec'): xdr.ScVal[] {
  expectType(value, 'scvVec', what);
  return value.vec() ?? [];
}

/** Reads a struct's fields by name; `field(name)` throws when the contract left one out. */
export function readStruct(value: xdr.ScVal, what: string): (name: string) => xdr.ScVal {
  expectType(value, 'scvMap', what);
  const fields = new Map<string, xdr.ScVal>();
  for (const entry of value.map() ?? []) fields.set(readSymbol(entry.key(), `${what} key`), entry.val());
  return (name) => {
    const field = fields.get(name);
    if (field === undefined) throw new TypeError(`${what}: missing field ${name}`);
    return field;
  };
}

export function readU32I128Map(value: xdr.ScVal, what: string): Map<number, bigint> {
  expectType(value, 'scvMap', what);
  const out = new Map<number, bigint>();
  for (const entry of value.map() ?? []) out.set(readU32(entry.key(), `${what} key`), readI128(entry.val(), what));
  return out;
}

/** Reads an enum value into its variant name and fields. */
export function readEnum(value: xdr.ScVal, what: string): { variant: string; fields: xdr.ScVal[] } {
  const [tag, ...fields] = readVec(value, what);
  if (tag === undefined) throw new TypeError(`${what}: empty enum vec`);
  return { variant: readSymbol(tag, `${what} variant`), fields };
}

export function isVoid(value: xdr.ScVal): boolean {
  return typeName(value) === 'scvVoid';
}
