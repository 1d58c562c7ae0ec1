import { StrKey, xdr } from '@stellar/stellar-sdk';
import { type Positions, contractDataKey, decodePositions, positionsKey } from './layouts';

/**
 * Users' `Positions` entries of a pool as the RPC carries them (base64 XDR), encoded and decoded without building the
 * SDK's XDR objects: what a monitor round reading tens of thousands of positions spends most of its time on
 * otherwise (address checks, XDR classes, base64 round trips). Every shape the fast path does not recognise goes
 * through the SDK, so the result, and the error for a malformed entry, are the same as `decodePositions`'.
 */

/** `LedgerEntryType::CONTRACT_DATA`, the first word of a contract-data key and of its entry's data. */
const CONTRACT_DATA = 6;
const SCV_U32 = 3;
const SCV_I128 = 10;
const SCV_SYMBOL = 15;
const SCV_MAP = 17;
/** The 32-byte ed25519 key of a `G...` user, then `ContractDataDurability` (4 bytes), end a positions key. */
const USER_KEY_FROM_END = 36;
const FIELDS = ['collateral', 'liabilities', 'supply'] as const;
/** A zero key whose place in a pool's positions key is where every other `G...` user's 32 bytes go. */
const TEMPLATE_USER = StrKey.encodeEd25519PublicKey(Buffer.alloc(32));

/** The base64 `LedgerKey`s of users' positions in one pool, from one template per pool. */
export class PositionsKeyEncoder {
  private readonly templates = new Map<string, Buffer>();

  /** The key as `contractDataKey(pool, positionsKey(user)).toXDR('base64')` encodes it, bytes and base64. */
  encode(pool: string, user: string): { bytes: Buffer; base64: string } {
    const account = accountKeyOf(user);
    let bytes: Buffer;
    if (account) {
      bytes = Buffer.from(this.template(pool));
      account.copy(bytes, bytes.length - USER_KEY_FROM_END);
    } else {
      // A contract user, or no valid address at all (the SDK then throws as it always did).
      bytes = contractDataKey(pool, positionsKey(user)).toXDR();
    }
    return { bytes, base64: bytes.toString('base64') };
  }

  private template(pool: string): Buffer {
    let template = this.templates.get(pool);
    if (!template) {
      template = contractDataKey(pool, positionsKey(TEMPLATE_USER)).toXDR();
      this.templates.set(pool, template);
    }
    return template;
  }
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE32_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE32.length; i += 1) BASE32_VALUE[BASE32.charCodeAt(i)] = i;
/** `G...`: StrKey's version byte of an ed25519 public key. */
const ED25519_VERSION = 6 << 3;

/**
 * The 32 bytes of a valid `G...` address, read as `StrKey.decodeEd25519PublicKey` reads it (base32 of the version
 * byte, the key and a CRC16-XModem checksum, little-endian; 56 characters are exactly 35 bytes, so no padding bits)
 * in a tenth of its time; `undefined` for anything else, which is left to the SDK.
 */
export function accountKeyOf(user: string): Buffer | undefined {
  if (user.length !== TEMPLATE_USER.length) return undefined;
  const raw = Buffer.allocUnsafe(35);
  let value = 0;
  let bits = 0;
  let at = 0;
  for (let i = 0; i < user.length; i += 1) {
    const code = user.charCodeAt(i);
    const digit = code < 128 ? BASE32_VALUE[code] : -1;
    if (digit < 0) return undefined;
    value = ((value << 5) | digit) & 0x1fff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      raw[at++] = (value >>> bits) & 0xff;
    }
  }
  if (raw[0] !== ED25519_VERSION) return undefined;
  const crc = crc16Xmodem(raw, 33);
  if (raw[33] !== (crc & 0xff) || raw[34] !== crc >>> 8) return undefined;
  return raw.subarray(1, 33);
}

function crc16Xmodem(bytes: Buffer, length: number): number {
  let crc = 0;
  for (let i = 0; i < length; i += 1) {
    crc ^= bytes[i] << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The `Positions` value of a pool's contract-data entry (`LedgerEntryData`, base64) whose key is `keyBytes`: read in
 * place when it is the struct the pool writes (`collateral`, `liabilities`, `supply`: maps of u32 to i128), through
 * the SDK's XDR classes otherwise (which throw as `decodePositions` does for a shape that is no `Positions`).
 */
export function decodePositionsEntry(keyBytes: Buffer, entryBase64: string): Positions {
  const data = Buffer.from(entryBase64, 'base64');
  return (
    readPositionsInPlace(keyBytes, data) ?? decodePositions(xdr.LedgerEntryData.fromXDR(data).contractData().val())
  );
}

/**
 * `ContractDataEntry` is `ext` (an empty extension point), then the key's own fields (contract, key, durability),
 * then `val`: the value starts right after a copy of the key less its type word.
 */
function readPositionsInPlace(keyBytes: Buffer, data: Buffer): Positions | undefined {
  const keyBody = keyBytes.length - 4;
  if (data.length < 8 + keyBody || data.readInt32BE(0) !== CONTRACT_DATA || data.readInt32BE(4) !== 0) return undefined;
  if (keyBytes.readInt32BE(0) !== CONTRACT_DATA || data.compare(keyBytes, 4, keyBytes.length, 8, 8 + keyBody) !== 0) {
    return undefined;
  }
  const reader = new ScValReader(data, 8 + keyBody);
  const fields = new Map<string, Map<number, bigint>>();
  const count = reader.mapLength();
  if (count === undefined) return undefined;
  for (let i = 0; i < count; i += 1) {
    const name = reader.symbol();
    const book = name === undefined ? undefined : reader.u32I128Map();
    if (name === undefined || book === undefined) return undefined;
    fields.set(name, book);
  }
  if (reader.offset !== data.length) return undefined;
  const [collateral, liabilities, supply] = FIELDS.map((name) => fields.get(name));
  if (!collateral || !liabilities || !supply) return undefined;
  return { liabilities, collateral, supply };
}

/** Reads the few ScVal shapes of a `Positions` value; `undefined` for anything else (the SDK decides then). */
class ScValReader {
  constructor(
    private readonly data: Buffer,
    public offset: number,
  ) {}

  /** An `scvMap` that is present: its entry count. */
  mapLength(): number | undefined {
    if (!this.has(12) || this.word() !== SCV_MAP || this.word() !== 1) return undefined;
    return this.word();
  }

  symbol(): string | undefined {
    if (!this.has(8) || this.word() !== SCV_SYMBOL) return undefined;
    const length = this.word();
    const padded = (length + 3) & ~3;
    if (!this.has(padded)) return undefined;
    const text = this.data.toString('latin1', this.offset, this.offset + length);
    this.offset += padded;
    return text;
  }

  u32I128Map(): Map<number, bigint> | undefined {
    const count = this.mapLength();
    if (count === undefined || !this.has(count * 28)) return undefined;
    const out = new Map<number, bigint>();
    for (let i = 0; i < count; i += 1) {
      if (this.word() !== SCV_U32) return undefined;
      const key = this.word();
      if (this.word() !== SCV_I128) return undefined;
      const hi = this.data.readBigInt64BE(this.offset);
      const lo = this.data.readBigUInt64BE(this.offset + 8);
      this.offset += 16;
      out.set(key, (hi << 64n) | lo);
    }
    return out;
  }

  private has(bytes: number): boolean {
    return this.offset + bytes <= this.data.length;
  }

  private word(): number {
    const value = this.data.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
}
