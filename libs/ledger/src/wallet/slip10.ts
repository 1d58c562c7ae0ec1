import { createHmac } from 'node:crypto';

/** SEP-5 account path: m/44'/148'/index'. */
export const SEP5_PURPOSE = 44;
export const SEP5_COIN_TYPE = 148;

const HARDENED = 0x80000000;

export class InvalidDerivationIndexError extends Error {
  override readonly name = 'InvalidDerivationIndexError';

  constructor() {
    super('derivation index must be an integer from 0 to 2^31 - 1');
  }
}

interface ExtendedKey {
  key: Buffer;
  chainCode: Buffer;
}

function split(digest: Buffer): ExtendedKey {
  return { key: digest.subarray(0, 32), chainCode: digest.subarray(32) };
}

/** SLIP-10 ed25519: only hardened children exist, so every index gets the hardened bit. */
function child(parent: ExtendedKey, index: number): ExtendedKey {
  const data = Buffer.alloc(37);
  parent.key.copy(data, 1);
  data.writeUInt32BE(index + HARDENED, 33);
  const digest = createHmac('sha512', parent.chainCode).update(data).digest();
  data.fill(0);
  return split(digest);
}

export function isDerivationIndex(index: number): boolean {
  return Number.isInteger(index) && index >= 0 && index < HARDENED;
}

/** The 32-byte ed25519 private key at m/<path>' (all hardened) of a BIP-39 seed. */
export function deriveEd25519Key(seed: Uint8Array, path: readonly number[]): Buffer {
  if (!path.every(isDerivationIndex)) throw new InvalidDerivationIndexError();
  let node = split(createHmac('sha512', 'ed25519 seed').update(seed).digest());
  for (const index of path) {
    const next = child(node, index);
    node.key.fill(0);
    node.chainCode.fill(0);
    node = next;
  }
  const key = Buffer.from(node.key);
  node.key.fill(0);
  node.chainCode.fill(0);
  return key;
}

export function sep5Path(index: number): number[] {
  return [SEP5_PURPOSE, SEP5_COIN_TYPE, index];
}
