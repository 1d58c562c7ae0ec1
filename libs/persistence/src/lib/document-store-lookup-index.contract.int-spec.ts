/**
 * The persistence contract's lookup indexes (ADR 034): on every driver the run reaches, a collection with them
 * answers every read exactly as one without them, and a bad definition is refused before any storage exists.
 */
import { CollectionDefinition, Filter, FindOptions, StoredDocument } from './collection';
import { type DriverUnderTest, onEveryDriver, suffix } from './contract-drivers.int-support';
import { DocumentStore } from './document-store';
import { InvalidQueryError } from './errors';
import { openDocumentStore } from './open-document-store';

interface Point extends StoredDocument {
  walletAddress?: string | number | null;
  pool?: { address: string };
  at?: Date;
  healthFactor?: number;
}

const START = Date.parse('2026-11-26T00:00:00.000Z');
const at = (minutes: number) => new Date(START + minutes * 60_000);

onEveryDriver('persistence contract, lookup indexes,', lookupIndexCases);

function lookupIndexCases({ target, cleanup }: DriverUnderTest): void {
  let store: DocumentStore;

  beforeAll(async () => {
    store = await openDocumentStore(target, { now: () => new Date(START) });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  const points: Omit<Point, 'id'>[] = [
    ...Array.from({ length: 60 }, (_, i) => ({
      walletAddress: `G${i % 3}`,
      pool: { address: `C${i % 2}` },
      at: at(i),
      healthFactor: 1 + i / 100,
    })),
    { walletAddress: 1, at: at(5) },
    { walletAddress: '1', at: at(5) },
    { walletAddress: null, at: at(6) },
    { pool: { address: 'C0' } },
  ];

  const reads: [Filter, FindOptions?][] = [
    [{ walletAddress: 'G1' }],
    [
      { walletAddress: 'G1', at: { $gte: at(10), $lt: at(40) } },
      { sort: { field: 'at', direction: 'desc' }, limit: 4 },
    ],
    [{ walletAddress: 'G2', 'pool.address': 'C0', at: { $gt: at(0) } }],
    [{ at: { $gte: at(50) } }, { sort: { field: 'at', direction: 'asc' } }],
    [{ walletAddress: '1' }],
    [{ walletAddress: 1 }],
    [{ walletAddress: null }],
    [{ 'pool.address': 'C0', healthFactor: { $gte: 1.3 } }],
  ];

  it('answers every read exactly as a collection without them', async () => {
    const open = async (definition: CollectionDefinition) => {
      const collection = await store.collection<Point>(definition);
      await collection.insertMany(points.map((point, i) => ({ id: `p${String(i).padStart(2, '0')}`, ...point })));
      return collection;
    };
    const plain = await open({ name: `plain_${suffix}` });
    const definition: CollectionDefinition = {
      name: `indexed_${suffix}`,
      indexes: [
        { name: 'wallet_pool_at', fields: ['walletAddress', 'pool.address'], dateRange: 'at' },
        { name: 'wallet', fields: ['walletAddress'] },
        { name: 'at', fields: [], dateRange: 'at' },
      ],
    };
    const indexed = await open(definition);
    for (const [filter, options] of reads) {
      const expected = await plain.find(filter, options);
      expect(await indexed.find(filter, options)).toEqual(expected);
      expect(await indexed.count(filter)).toBe(await plain.count(filter));
    }
    // Opening it again (another process starting) keeps the indexes and the documents.
    expect(await (await store.collection<Point>(definition)).count({ walletAddress: 'G1' })).toBe(20);
  });

  it('refuses a lookup index without fields, with a bad field or name, or named twice', async () => {
    const refused = (indexes: CollectionDefinition['indexes'], unique?: CollectionDefinition['unique']) =>
      expect((async () => store.collection({ name: `refused_${suffix}`, indexes, unique }))()).rejects.toBeInstanceOf(
        InvalidQueryError,
      );
    await refused([{ name: 'empty', fields: [] }]);
    await refused([{ name: 'bad_field', fields: ["a') OR 1=1 --"] }]);
    await refused([{ name: 'bad_date', fields: ['a'], dateRange: 'b.$date' }]);
    await refused([{ name: 'Bad-Name', fields: ['a'] }]);
    await refused([{ name: 'twice', fields: ['a'] }], [{ name: 'twice', fields: ['b'] }]);
  });
}
