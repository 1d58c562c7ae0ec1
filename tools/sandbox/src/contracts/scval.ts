import { Address, nativeToScVal, scValToNative, xdr } from '@stellar/stellar-sdk';

/** Small typed converters between contract arguments and TypeScript values. */

export const symbol = (name: string): xdr.ScVal => xdr.ScVal.scvSymbol(name);
export const i128 = (value: bigint): xdr.ScVal => nativeToScVal(value, { type: 'i128' });
export const u32 = (value: number): xdr.ScVal => xdr.ScVal.scvU32(value);
export const address = (value: string): xdr.ScVal => new Address(value).toScVal();
export const string = (value: string): xdr.ScVal => xdr.ScVal.scvString(value);

export function toBigInt(value: xdr.ScVal | undefined): bigint {
  if (!value) return 0n;
  const native: unknown = scValToNative(value);
  if (typeof native === 'bigint') return native;
  if (typeof native === 'number') return BigInt(native);
  throw new TypeError(`expected an integer, got ${value.switch().name}`);
}

export function toAddress(value: xdr.ScVal | undefined): string {
  if (!value || value.switch().name !== 'scvAddress') throw new TypeError('expected an address');
  return Address.fromScVal(value).toString();
}

export function toNumber(value: xdr.ScVal | undefined): number {
  if (!value || value.switch().name !== 'scvU32') throw new TypeError('expected a u32');
  return value.u32();
}

export function toText(value: xdr.ScVal | undefined): string {
  if (!value) throw new TypeError('expected a string');
  return String(scValToNative(value));
}
