import { Address, scValToNative, xdr } from '@stellar/stellar-sdk';
import { blendScVal } from '@rp/ledger';

/**
 * Converters for the sandbox's own contracts and setup. Encoders are `libs/ledger`'s Soroban codecs under short
 * names; readers are lenient where a contract reads its own storage (a missing balance is 0).
 */

export const symbol = blendScVal.scSymbol;
export const i128 = blendScVal.scI128;
export const u32 = blendScVal.scU32;
export const address = blendScVal.scAddress;
export const string = blendScVal.scString;

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
