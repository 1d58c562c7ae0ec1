/**
 * The persistence contract's bulk insert (`insertMany`: one round trip), on every driver the run reaches.
 */
import { StoredDocument } from './collection';
import { type DriverUnderTest, onEveryDriver, suffix } from './contract-drivers.int-support';
import { DocumentStore } from './document-store';
import { InvalidQueryError } from './errors';
import { openDocumentStore } from './open-document-store';

interface Position extends StoredDocument {
  wallet: string;
  pool?: string;
  healthFactor?: number;
  seenAt?: Date;
  expiresAt?: Date;
  tags?: string[];
}

const WALLET_A = 'GAAAA';
const WALLET_B = 'GBBBB';

onEveryDriver('persistence contract, insertMany,', insertManyCases);

function insertManyCases({ target, cleanup }: DriverUnderTest): void {
  let store: DocumentStore;
  let clock = new Date('2026-11-22T10:00:00.000Z');
  let sequence = 0;
  const collectionName = () => `m${sequence++}_${suffix}`;

  beforeAll(async () => {
    store = await openDocumentStore(target, { now: () => clock });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  it('inserts many documents at once, skipping those whose id or unique key is taken', async () => {
    const points = await store.collection<Position>({
      name: collectionName(),
      unique: [{ name: 'wallet_pool', fields: ['wallet', 'pool'] }],
      ttl: { field: 'expiresAt' },
    });
    expect(await points.insertMany([])).toBe(0);
    await points.insert({ id: 'p0', wallet: WALLET_A, pool: 'P0' });
    const seenAt = new Date('2026-11-20T08:30:00.123Z');
    const batch = Array.from({ length: 1200 }, (_, i) => ({
      id: `p${i}`,
      wallet: WALLET_B,
      pool: `P${i}`,
      healthFactor: i / 100,
      seenAt,
      tags: ['x'],
    }));
    expect(await points.insertMany(batch)).toBe(1199);
    expect(await points.count({ wallet: WALLET_B })).toBe(1199);
    expect(await points.findOne({ id: 'p7' })).toEqual({ ...batch[7] });
    expect((await points.findOne({ id: 'p7' }))?.seenAt).toBeInstanceOf(Date);

    // The same batch again: nothing added; a unique key taken by another id is skipped too.
    expect(await points.insertMany(batch)).toBe(0);
    expect(await points.insertMany([{ id: 'other', wallet: WALLET_B, pool: 'P3' }, { wallet: WALLET_A }])).toBe(1);
    // Twice the same id in one batch: the first is kept.
    expect(
      await points.insertMany([
        { id: 'twice', wallet: 'W1' },
        { id: 'twice', wallet: 'W2' },
      ]),
    ).toBe(1);
    expect(await points.findOne({ id: 'twice' })).toMatchObject({ wallet: 'W1' });

    // An expired document no longer holds its key.
    await points.insert({ id: 'old', wallet: WALLET_A, pool: 'P9', expiresAt: new Date(clock.getTime() + 1000) });
    clock = new Date(clock.getTime() + 1000);
    expect(await points.insertMany([{ id: 'new', wallet: WALLET_A, pool: 'P9' }])).toBe(1);
    expect(await points.findOne({ wallet: WALLET_A, pool: 'P9' })).toMatchObject({ id: 'new' });

    await expect(points.insertMany([{ wallet: WALLET_A, $bad: 1 } as never])).rejects.toBeInstanceOf(InvalidQueryError);
  });
}
