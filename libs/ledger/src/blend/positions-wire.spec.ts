import { Address, Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { type Positions, contractDataKey, decodePositions, encodePositions, positionsKey } from './layouts';
import { PositionsKeyEncoder, accountKeyOf, decodePositionsEntry } from './positions-wire';
import { scStruct, scSymbol, scU32, scU32I128Map } from './scval';

const contract = (seed: number) => StrKey.encodeContract(Buffer.alloc(32, seed));
const POOLS = [contract(1), contract(2)];

/** A pool's `LedgerEntryData` holding `val` under a user's positions key, as the RPC sends it, and the key bytes. */
function entryOf(pool: string, user: string, val: xdr.ScVal): { keyBytes: Buffer; entry: string } {
  const key = positionsKey(user);
  const data = xdr.LedgerEntryData.contractData(
    new xdr.ContractDataEntry({
      ext: new xdr.ExtensionPoint(0),
      contract: new Address(pool).toScAddress(),
      key,
      durability: xdr.ContractDataDurability.persistent(),
      val,
    }),
  );
  return { keyBytes: contractDataKey(pool, key).toXDR(), entry: data.toXDR('base64') };
}

/** A deterministic pseudo-random book: up to `size` reserves, amounts over the whole i128 range the pool allows. */
function book(seed: number, size: number): Map<number, bigint> {
  const out = new Map<number, bigint>();
  for (let i = 0; i < seed % (size + 1); i += 1) {
    const index = (seed * 7 + i * 3) % 50;
    const amount = (BigInt(seed) * 1_000_000_007n) ** BigInt(1 + (i % 4)) % 2n ** 126n;
    out.set(index, i % 5 === 4 ? -amount : amount);
  }
  return out;
}

describe('positions on the wire', () => {
  const keys = new PositionsKeyEncoder();

  it('encodes every positions key as the SDK does, for accounts and contracts, in every pool', () => {
    const users = [
      ...Array.from({ length: 20 }, () => Keypair.random().publicKey()),
      StrKey.encodeEd25519PublicKey(Buffer.alloc(32, 0xff)),
      contract(9),
      contract(10),
    ];
    for (const pool of POOLS) {
      for (const user of users) {
        const expected = contractDataKey(pool, positionsKey(user)).toXDR();
        const key = keys.encode(pool, user);
        expect(key.base64).toBe(expected.toString('base64'));
        expect(key.bytes.equals(expected)).toBe(true);
      }
    }
  });

  it("reads a G address's key as StrKey does, and leaves every address StrKey refuses to it", () => {
    for (let i = 0; i < 500; i += 1) {
      const key = Keypair.random().rawPublicKey();
      expect(accountKeyOf(StrKey.encodeEd25519PublicKey(key))?.equals(key)).toBe(true);
    }
    const valid = Keypair.random().publicKey();
    const mutations = [
      ...Array.from(
        { length: 56 },
        (_, i) => `${valid.slice(0, i)}${valid[i] === 'A' ? 'B' : 'A'}${valid.slice(i + 1)}`,
      ),
      valid.toLowerCase(),
      valid.slice(1),
      `${valid}A`,
      contract(3),
      StrKey.encodeMed25519PublicKey(Buffer.alloc(40, 1)),
      `${valid.slice(0, 55)}1`,
    ];
    for (const address of mutations) {
      expect(accountKeyOf(address)).toBeUndefined();
      expect(StrKey.isValidEd25519PublicKey(address)).toBe(false);
    }
  });

  it('refuses a user that is no address, as the SDK does', () => {
    const bad = `G${'A'.repeat(55)}`;
    expect(() => keys.encode(POOLS[0], bad)).toThrow();
    expect(() => keys.encode(POOLS[0], 'nobody')).toThrow();
  });

  it('decodes positions exactly as the SDK does, empty books and negative or 126-bit amounts included', () => {
    const sdkDecodes = jest.spyOn(xdr.LedgerEntryData, 'fromXDR');
    const entries = Array.from({ length: 200 }, (_, seed) => {
      const positions: Positions = {
        collateral: book(seed, 6),
        liabilities: book(seed * 3 + 1, 4),
        supply: book(seed * 5 + 2, 3),
      };
      return { positions, ...entryOf(POOLS[seed % 2], Keypair.random().publicKey(), encodePositions(positions)) };
    });
    sdkDecodes.mockClear();
    const decoded = entries.map(({ keyBytes, entry }) => decodePositionsEntry(keyBytes, entry));
    // The pool's own shape is read in place, never through the SDK's classes.
    expect(sdkDecodes).not.toHaveBeenCalled();
    sdkDecodes.mockRestore();
    entries.forEach(({ positions, entry }, i) => {
      expect(decoded[i]).toEqual(positions);
      expect(decoded[i]).toEqual(decodePositions(xdr.LedgerEntryData.fromXDR(entry, 'base64').contractData().val()));
    });
  });

  it('decodes a struct with a field it does not know through the SDK, with the same result', () => {
    const positions = { collateral: book(5, 3), liabilities: book(6, 3), supply: new Map<number, bigint>() };
    const val = scStruct({
      collateral: scU32I128Map(positions.collateral),
      liabilities: scU32I128Map(positions.liabilities),
      note: scU32(7),
      supply: scU32I128Map(positions.supply),
    });
    const { keyBytes, entry } = entryOf(POOLS[0], Keypair.random().publicKey(), val);
    expect(decodePositionsEntry(keyBytes, entry)).toEqual(positions);
  });

  it('throws what decodePositions throws for a value that is no Positions', () => {
    const user = Keypair.random().publicKey();
    const missing = entryOf(POOLS[0], user, scStruct({ collateral: scU32I128Map(new Map()) }));
    expect(() => decodePositionsEntry(missing.keyBytes, missing.entry)).toThrow('Positions: missing field liabilities');
    const scalar = entryOf(POOLS[0], user, scU32(3));
    expect(() => decodePositionsEntry(scalar.keyBytes, scalar.entry)).toThrow('Positions: expected scvMap');
    const wrongBook = entryOf(
      POOLS[0],
      user,
      scStruct({ collateral: scSymbol('x'), liabilities: scU32I128Map(new Map()), supply: scU32I128Map(new Map()) }),
    );
    expect(() => decodePositionsEntry(wrongBook.keyBytes, wrongBook.entry)).toThrow('Positions.collateral');
  });
});
