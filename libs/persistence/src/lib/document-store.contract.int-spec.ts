/**
 * The persistence contract: the same cases on every driver (contract-drivers.int-support.ts says which run and
 * how an unreachable one is reported as skipped). Bulk inserts have their own file beside this one.
 */
import { StoredDocument } from './collection';
import { type DriverUnderTest, onEveryDriver, suffix } from './contract-drivers.int-support';
import { DocumentStore } from './document-store';
import { DuplicateKeyError, InvalidQueryError } from './errors';
import { openDocumentStore } from './open-document-store';

interface Position extends StoredDocument {
  wallet: string;
  pool?: string;
  healthFactor?: number;
  amount?: string;
  note?: string | null;
  risk?: { level: string; score: number };
  seenAt?: Date;
  expiresAt?: Date;
  attempts?: number;
  tags?: string[];
}

interface Flagged extends StoredDocument {
  value?: boolean | number | string | Date | { a: number } | null;
}

const WALLET_A = 'GAAAA';
const WALLET_B = 'GBBBB';
const I128_MAX = '170141183460469231731687303715884105727';

// An unreachable driver's cases are declared all the same and reported as skipped, never dropped.
onEveryDriver('persistence contract', contractCases);

function contractCases({ name, target, cleanup }: DriverUnderTest): void {
  let store: DocumentStore;
  let clock = new Date('2026-11-22T10:00:00.000Z');
  let sequence = 0;
  const collectionName = () => `c${sequence++}_${suffix}`;

  beforeAll(async () => {
    store = await openDocumentStore(target, { now: () => clock });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  beforeEach(() => {
    clock = new Date('2026-11-22T10:00:00.000Z');
  });

  it(`reports its driver (${name})`, () => {
    expect(store.driver).toBe(target.driver);
  });

  it('inserts, reads back by id and keeps dates, nested objects and arrays', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    const seenAt = new Date('2026-11-20T08:30:00.123Z');
    const inserted = await positions.insert({
      wallet: WALLET_A,
      risk: { level: 'high', score: 7 },
      seenAt,
      tags: ['a', 'b'],
    });
    expect(inserted.id).toMatch(/^[0-9a-f-]{36}$/);
    const found = await positions.findOne({ id: inserted.id });
    expect(found).toEqual({
      id: inserted.id,
      wallet: WALLET_A,
      risk: { level: 'high', score: 7 },
      seenAt,
      tags: ['a', 'b'],
    });
    expect(found?.seenAt).toBeInstanceOf(Date);
    expect(await positions.findOne({ id: 'no-such-id' })).toBeNull();
  });

  it('updates with set, inc and unset, counts and deletes', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    const a = await positions.insert({ id: 'a', wallet: WALLET_A, attempts: 1, note: 'x' });
    await positions.insert({ id: 'b', wallet: WALLET_B });
    await positions.insert({ id: 'c', wallet: WALLET_B });

    const updated = await positions.updateOne(
      { id: a.id },
      { set: { pool: 'CPOOL' }, inc: { attempts: 2 }, unset: ['note'] },
    );
    expect(updated).toEqual({
      matched: true,
      upserted: false,
      document: { id: 'a', wallet: WALLET_A, attempts: 3, pool: 'CPOOL' },
    });
    expect(await positions.findOne({ id: 'a' })).toEqual({ id: 'a', wallet: WALLET_A, attempts: 3, pool: 'CPOOL' });
    expect(await positions.updateOne({ wallet: 'GNONE' }, { set: { pool: 'x' } })).toEqual({
      matched: false,
      upserted: false,
      document: null,
    });

    expect(await positions.count({})).toBe(3);
    expect(await positions.count({ wallet: WALLET_B })).toBe(2);
    expect(await positions.delete({ wallet: WALLET_B })).toBe(2);
    expect(await positions.count({})).toBe(1);
    expect(await positions.delete({ wallet: WALLET_B })).toBe(0);
  });

  it('filters on nested fields, on null (missing or null) and on several fields at once', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    await positions.insert({ id: '1', wallet: WALLET_A, risk: { level: 'high', score: 7 }, note: null });
    await positions.insert({ id: '2', wallet: WALLET_A, risk: { level: 'low', score: 1 } });
    await positions.insert({ id: '3', wallet: WALLET_B, risk: { level: 'high', score: 9 }, note: 'kept' });

    const ids = async (filter: Parameters<typeof positions.find>[0]) =>
      (await positions.find(filter)).map((p) => p.id).sort();
    expect(await ids({ 'risk.level': 'high' })).toEqual(['1', '3']);
    expect(await ids({ 'risk.level': 'high', wallet: WALLET_A })).toEqual(['1']);
    expect(await ids({ 'risk.score': 9 })).toEqual(['3']);
    expect(await ids({ note: null })).toEqual(['1', '2']);
    expect(await ids({ 'risk.missing': null })).toEqual(['1', '2', '3']);
    expect(await ids({ 'risk.level': 'medium' })).toEqual([]);
  });

  it('filters numbers and dates by range, ignoring values of another type', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    await positions.insert({
      id: 'low',
      wallet: WALLET_A,
      healthFactor: 1.05,
      seenAt: new Date('2026-11-01T00:00:00Z'),
    });
    await positions.insert({
      id: 'mid',
      wallet: WALLET_A,
      healthFactor: 1.3,
      seenAt: new Date('2026-11-10T00:00:00Z'),
    });
    await positions.insert({ id: 'high', wallet: WALLET_A, healthFactor: 2, seenAt: new Date('2026-11-20T00:00:00Z') });
    await positions.insert({ id: 'text', wallet: WALLET_A, amount: '1.2' });

    const ids = async (filter: Parameters<typeof positions.find>[0]) =>
      (await positions.find(filter)).map((p) => p.id).sort();
    expect(await ids({ healthFactor: { $lt: 1.1 } })).toEqual(['low']);
    expect(await ids({ healthFactor: { $gte: 1.3, $lte: 2 } })).toEqual(['high', 'mid']);
    expect(await ids({ healthFactor: { $gt: 1.3 } })).toEqual(['high']);
    expect(await ids({ amount: { $gt: 0 } })).toEqual([]);
    expect(await ids({ seenAt: { $gte: new Date('2026-11-10T00:00:00Z') } })).toEqual(['high', 'mid']);
    expect(await ids({ seenAt: { $lt: new Date('2026-11-10T00:00:00Z') } })).toEqual(['low']);
    expect(await ids({ seenAt: new Date('2026-11-20T00:00:00Z') })).toEqual(['high']);
  });

  it('matches values of the filter type only: true is not 1, "1" is not 1, a date is not its ISO text', async () => {
    const values = await store.collection<Flagged>({ name: collectionName() });
    const at = new Date('2026-11-20T08:30:00.000Z');
    const stored: [string, Flagged['value']][] = [
      ['true', true],
      ['false', false],
      ['one', 1],
      ['zero', 0],
      ['text-one', '1'],
      ['text-true', 'true'],
      ['date', at],
      ['iso', at.toISOString()],
      ['object', { a: 1 }],
      ['null', null],
    ];
    for (const [id, value] of stored) await values.insert({ id, value });
    await values.insert({ id: 'missing' });

    const ids = async (filter: Parameters<typeof values.find>[0]) =>
      (await values.find(filter)).map((v) => v.id).sort();
    expect(await ids({ value: true })).toEqual(['true']);
    expect(await ids({ value: false })).toEqual(['false']);
    expect(await ids({ value: 1 })).toEqual(['one']);
    expect(await ids({ value: 0 })).toEqual(['zero']);
    expect(await ids({ value: '1' })).toEqual(['text-one']);
    expect(await ids({ value: 'true' })).toEqual(['text-true']);
    expect(await ids({ value: at })).toEqual(['date']);
    expect(await ids({ value: at.toISOString() })).toEqual(['iso']);
    expect(await ids({ value: '{"a":1}' })).toEqual([]);
    expect(await ids({ value: null })).toEqual(['missing', 'null']);
    expect(await ids({ value: { $gte: 0 } })).toEqual(['one', 'zero']);
    expect(await ids({ value: { $lte: at } })).toEqual(['date']);
  });

  it('sorts strings by code point and dates by instant', async () => {
    const events = await store.collection<Position>({ name: collectionName() });
    await events.insert({ id: 'e1', wallet: 'é', seenAt: new Date('2026-11-20T08:30:00.000Z') });
    await events.insert({ id: 'e2', wallet: 'z', seenAt: new Date('2026-11-20T08:29:59.999Z') });
    await events.insert({ id: 'e3', wallet: 'Z', seenAt: new Date('2025-12-31T23:59:59.000Z') });
    await events.insert({ id: 'e4', wallet: 'ab' });

    const order = async (options: Parameters<typeof events.find>[1]) =>
      (await events.find({}, options)).map((e) => e.id);
    expect(await order({ sort: { field: 'wallet', direction: 'asc' } })).toEqual(['e3', 'e4', 'e2', 'e1']);
    expect(await order({ sort: { field: 'seenAt', direction: 'asc' } })).toEqual(['e4', 'e3', 'e2', 'e1']);
    expect(await order({ sort: { field: 'seenAt', direction: 'desc' } })).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('sorts on one field (missing first when ascending), breaks ties by id, and limits', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    await positions.insert({ id: 'p1', wallet: 'b', healthFactor: 10 });
    await positions.insert({ id: 'p2', wallet: 'B', healthFactor: 9 });
    await positions.insert({ id: 'p3', wallet: 'a', healthFactor: 1.5 });
    await positions.insert({ id: 'p4', wallet: 'a' });

    const order = async (options: Parameters<typeof positions.find>[1]) =>
      (await positions.find({}, options)).map((p) => p.id);
    expect(await order({ sort: { field: 'healthFactor', direction: 'asc' } })).toEqual(['p4', 'p3', 'p2', 'p1']);
    expect(await order({ sort: { field: 'healthFactor', direction: 'desc' } })).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(await order({ sort: { field: 'wallet', direction: 'asc' } })).toEqual(['p2', 'p3', 'p4', 'p1']);
    expect(await order({ sort: { field: 'healthFactor', direction: 'desc' }, limit: 2 })).toEqual(['p1', 'p2']);
    expect(await order({ sort: { field: 'id', direction: 'desc' }, limit: 1 })).toEqual(['p4']);
    expect((await positions.findOne({ wallet: 'a' }, { sort: { field: 'healthFactor', direction: 'desc' } }))?.id).toBe(
      'p3',
    );
  });

  it('refuses a second document with the same unique key, with one typed error naming the index', async () => {
    const keys = await store.collection<Position>({
      name: collectionName(),
      unique: [{ name: 'wallet_pool', fields: ['wallet', 'pool'] }],
    });
    await keys.insert({ id: 'k1', wallet: WALLET_A, pool: 'P1' });
    await keys.insert({ id: 'k2', wallet: WALLET_A, pool: 'P2' });
    await keys.insert({ id: 'k3', wallet: WALLET_A });
    await keys.insert({ id: 'k4', wallet: WALLET_A });

    const duplicate = await keys.insert({ wallet: WALLET_A, pool: 'P1' }).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(DuplicateKeyError);
    expect(duplicate).toMatchObject({ collection: keys.name, index: 'wallet_pool' });

    await expect(keys.insert({ id: 'k1', wallet: WALLET_B })).rejects.toMatchObject({
      name: 'DuplicateKeyError',
      index: 'id',
    });
    await expect(keys.updateOne({ id: 'k2' }, { set: { pool: 'P1' } })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await keys.findOne({ id: 'k2' })).toMatchObject({ pool: 'P2' });
    expect(await keys.count({})).toBe(4);
  });

  it('leaves exactly one document when many callers upsert the same key at once', async () => {
    const counters = await store.collection<Position>({
      name: collectionName(),
      unique: [{ name: 'wallet', fields: ['wallet'] }],
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        counters.updateOne(
          { wallet: WALLET_A },
          { inc: { attempts: 1 }, setOnInsert: { note: 'first' } },
          { upsert: true },
        ),
      ),
    );
    expect(results.filter((r) => r.upserted)).toHaveLength(1);
    expect(await counters.count({ wallet: WALLET_A })).toBe(1);
    expect(await counters.findOne({ wallet: WALLET_A })).toMatchObject({
      wallet: WALLET_A,
      attempts: 20,
      note: 'first',
    });
  });

  it('seeds an upserted document from the filter and applies setOnInsert only when inserting', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    const inserted = await positions.updateOne(
      { wallet: WALLET_A, 'risk.level': 'high' },
      { set: { pool: 'P' }, setOnInsert: { note: 'created' } },
      { upsert: true },
    );
    expect(inserted).toMatchObject({ matched: false, upserted: true });
    expect(inserted.document).toMatchObject({ wallet: WALLET_A, risk: { level: 'high' }, pool: 'P', note: 'created' });
    const again = await positions.updateOne(
      { wallet: WALLET_A, 'risk.level': 'high' },
      { set: { pool: 'Q' }, setOnInsert: { note: 'ignored' } },
      { upsert: true },
    );
    expect(again).toMatchObject({ matched: true, upserted: false, document: { pool: 'Q', note: 'created' } });
    expect(await positions.count({})).toBe(1);
  });

  it('makes a document disappear once the time in its TTL field has passed, and frees its unique key', async () => {
    const sessions = await store.collection<Position>({
      name: collectionName(),
      unique: [{ name: 'wallet', fields: ['wallet'] }],
      ttl: { field: 'expiresAt' },
    });
    await sessions.insert({ id: 's1', wallet: WALLET_A, expiresAt: new Date(clock.getTime() + 60_000) });
    await sessions.insert({ id: 's2', wallet: WALLET_B });
    expect(await sessions.count({})).toBe(2);

    clock = new Date(clock.getTime() + 59_999);
    expect(await sessions.findOne({ id: 's1' })).not.toBeNull();

    clock = new Date(clock.getTime() + 1);
    expect(await sessions.findOne({ id: 's1' })).toBeNull();
    expect(await sessions.find({})).toEqual([{ id: 's2', wallet: WALLET_B }]);
    expect(await sessions.count({ wallet: WALLET_A })).toBe(0);
    expect(await sessions.updateOne({ id: 's1' }, { set: { note: 'late' } })).toMatchObject({ matched: false });

    const renewed = await sessions.insert({ wallet: WALLET_A, expiresAt: new Date(clock.getTime() + 60_000) });
    expect(await sessions.findOne({ wallet: WALLET_A })).toMatchObject({ id: renewed.id });
  });

  it('stores large integers as strings, exactly, and matches them exactly', async () => {
    const payments = await store.collection<Position>({ name: collectionName() });
    await payments.insert({ id: 'max', wallet: WALLET_A, amount: I128_MAX });
    await payments.insert({ id: 'big', wallet: WALLET_A, amount: BigInt('9007199254740993') as unknown as string });
    expect((await payments.findOne({ id: 'max' }))?.amount).toBe(I128_MAX);
    expect((await payments.findOne({ id: 'big' }))?.amount).toBe('9007199254740993');
    expect((await payments.findOne({ amount: I128_MAX }))?.id).toBe('max');
    expect(await payments.findOne({ amount: '170141183460469231731687303715884105726' })).toBeNull();
  });

  it('refuses operators, unsafe field names and values it cannot store, and writes nothing', async () => {
    const positions = await store.collection<Position>({ name: collectionName() });
    await expect(positions.find({ wallet: { $ne: 'x' } as never })).rejects.toBeInstanceOf(InvalidQueryError);
    await expect(positions.find({ '__proto__.polluted': 1 })).rejects.toBeInstanceOf(InvalidQueryError);
    await expect(positions.find({ "wallet') OR 1=1 --": 'x' })).rejects.toBeInstanceOf(InvalidQueryError);
    await expect(positions.insert({ wallet: 'x', risk: { $where: 1 } } as never)).rejects.toBeInstanceOf(
      InvalidQueryError,
    );
    await expect(positions.insert({ wallet: 'x', healthFactor: Number.NaN })).rejects.toBeInstanceOf(InvalidQueryError);
    await expect(
      positions.updateOne({ wallet: 'x' }, { set: { wallet: 'y' }, unset: ['wallet'] }),
    ).rejects.toBeInstanceOf(InvalidQueryError);
    expect(await positions.count({})).toBe(0);
  });
}
