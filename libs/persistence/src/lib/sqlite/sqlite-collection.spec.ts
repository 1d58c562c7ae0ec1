import { Filter, LookupIndex, StoredDocument } from '../collection';
import { DuplicateKeyError } from '../errors';
import { parseFilter } from '../query';
import { SqliteCollection } from './sqlite-collection';
import { SqliteConnection } from './sqlite-connection';
import { SqliteParams, conditionSql, orderSql } from './sqlite-query';

interface Keyed extends StoredDocument {
  wallet?: string;
  key?: boolean | number | string | null;
  risk?: { level: string } | null;
}

describe('SQLite collection', () => {
  let connection: SqliteConnection;
  const now = () => new Date('2026-11-22T10:00:00.000Z');

  beforeEach(() => {
    connection = SqliteConnection.open(undefined);
  });
  afterEach(() => connection.close());

  /** What SQLite says it would do to find the documents of `table` that match `filter`. */
  function queryPlan(table: string, filter: Filter): string {
    const params = new SqliteParams();
    const where = parseFilter(filter).map((condition) => conditionSql(condition, params));
    return connection
      .all<{ detail: string }>(
        `EXPLAIN QUERY PLAN SELECT id FROM "${table}" WHERE ${where.join(' AND ')}`,
        params.values,
      )
      .map((row) => row.detail)
      .join('; ');
  }

  async function open(unique: string[][]): Promise<SqliteCollection<Keyed>> {
    const collection = new SqliteCollection<Keyed>(
      connection,
      { name: 'keyed', unique: unique.map((fields) => ({ name: fields.join('_').replace(/\./g, '_'), fields })) },
      now,
    );
    await collection.ensureStorage();
    return collection;
  }

  it('keeps true and 1, false and 0, "1" and 1 apart in a unique index', async () => {
    const keyed = await open([['key']]);
    for (const key of [true, 1, '1', false, 0, 'true']) await keyed.insert({ key });
    await expect(keyed.insert({ key: 1 })).rejects.toMatchObject({ name: 'DuplicateKeyError', index: 'key' });
    await expect(keyed.insert({ key: true })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await keyed.count({})).toBe(6);
  });

  it('never conflicts on a unique field that is missing or null, nested or not', async () => {
    const keyed = await open([['wallet', 'risk.level']]);
    await keyed.insert({ wallet: 'G', risk: { level: 'high' } });
    await keyed.insert({ wallet: 'G' });
    await keyed.insert({ wallet: 'G' });
    await keyed.insert({ wallet: 'G', risk: null });
    await keyed.insert({ wallet: 'G', risk: null });
    await expect(keyed.insert({ wallet: 'G', risk: { level: 'high' } })).rejects.toMatchObject({
      index: 'wallet_risk_level',
    });
    expect(await keyed.count({ wallet: 'G' })).toBe(5);
  });

  it('answers an equality filter on a uniquely indexed field from the index', async () => {
    await open([['wallet'], ['risk.level']]);
    const plan = (filter: Filter) => queryPlan('keyed', filter);
    expect(plan({ wallet: 'G' })).toContain('USING INDEX keyed__wallet');
    expect(plan({ 'risk.level': 'high' })).toContain('USING INDEX keyed__risk_level');
    expect(plan({ memo: 'x' })).toMatch(/^SCAN keyed/);
  });

  it('answers equalities then a date range from a lookup index, and only with it', async () => {
    const plan = async (indexes: LookupIndex[]) => {
      const name = indexes.length > 0 ? 'looked_up' : 'scanned';
      const collection = new SqliteCollection<Keyed>(connection, { name, indexes }, now);
      await collection.ensureStorage();
      return queryPlan(name, {
        wallet: 'G',
        'risk.level': 'high',
        at: { $gte: now(), $lt: new Date(now().getTime() + 1) },
      });
    };
    const indexed = await plan([{ name: 'wallet_level_at', fields: ['wallet', 'risk.level'], dateRange: 'at' }]);
    expect(indexed).toContain('USING INDEX looked_up__wallet_level_at');
    // Both fields' value and JSON type, then both bounds of the date: nothing left to filter row by row.
    expect(indexed).toContain('(<expr>=? AND <expr>=? AND <expr>=? AND <expr>=? AND <expr>>? AND <expr><?)');
    expect(await plan([])).toMatch(/^SCAN scanned/);
  });

  it('writes JSON paths into the statement and binds every value', () => {
    const params = new SqliteParams();
    const sql = parseFilter({ wallet: "G' OR 1=1 --", 'risk.level': 'high', score: { $gt: 2 } })
      .map((condition) => conditionSql(condition, params))
      .join(' AND ');
    expect(sql).not.toContain("G'");
    expect(sql).toContain(`json_extract(doc, '$.risk.level')`);
    expect(params.values).toEqual(["G' OR 1=1 --", 'high', 2]);
    expect(orderSql({ path: ['id'], direction: 'desc' })).toBe('ORDER BY id DESC');
  });
});
