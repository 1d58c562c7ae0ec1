/**
 * PostgreSQL answers a filter on a lookup index's fields from the index: the JSON paths are written into the
 * statement (not bound), so the filter's expressions are the index's. Runs when TEST_POSTGRES_URL is set (CI sets it
 * when PostgreSQL answers); otherwise reported as skipped, with the reason in the suite's name.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { LookupIndex, StoredDocument } from '../collection';
import { parseFilter } from '../query';
import { PgExecutor } from './pg-executor';
import { SqlCollection } from './sql-collection';
import { SqlParams, conditionSql } from './sql-query';

interface Point extends StoredDocument {
  walletAddress: string;
  poolAddress: string;
  at: Date;
}

const url = process.env['TEST_POSTGRES_URL'];
const suite = url ? describe : describe.skip;
const schema = `lookup_${randomBytes(4).toString('hex')}`;
const start = new Date('2026-11-26T00:00:00.000Z');

suite(`PostgreSQL lookup indexes${url ? '' : ' (TEST_POSTGRES_URL unset)'}`, () => {
  let executor: PgExecutor;
  let client: Client;

  beforeAll(async () => {
    const scoped = new URL(url as string);
    scoped.searchParams.set('schema', schema);
    executor = await PgExecutor.connect(scoped.toString());
    client = new Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
  });

  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client?.end();
    await executor?.close();
  });

  /** The plan of a wallet's points in a pool over an hour, on a collection with `indexes`, seq scans discouraged. */
  async function plan(name: string, indexes: LookupIndex[]): Promise<string> {
    const points = new SqlCollection<Point>(executor, { name, indexes }, () => new Date());
    await points.ensureStorage();
    await points.insertMany(
      Array.from({ length: 500 }, (_, i) => ({
        walletAddress: `G${i % 50}`,
        poolAddress: 'C1',
        at: new Date(start.getTime() + i * 60_000),
      })),
    );
    const params = new SqlParams();
    const filter = {
      walletAddress: 'G7',
      poolAddress: 'C1',
      at: { $gte: start, $lt: new Date(start.getTime() + 3.6e6) },
    };
    const where = parseFilter(filter).map((condition) => conditionSql(condition, params));
    await client.query('SET enable_seqscan = off');
    const rows = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM "${name}" WHERE ${where.join(' AND ')}`,
      params.values,
    );
    return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it('uses the index for the equalities and the date range, and scans without it', async () => {
    const indexed = await plan('looked_up', [
      { name: 'wallet_pool_at', fields: ['walletAddress', 'poolAddress'], dateRange: 'at' },
    ]);
    expect(indexed).toMatch(
      /Index (Only )?Scan using looked_up__wallet_pool_at|Bitmap Index Scan on looked_up__wallet_pool_at/,
    );
    // Every condition is an index condition, the date range included; at most the strings' text form (the
    // unique indexes' expression, implied by the exact comparison) is re-checked on the rows the index found.
    expect(indexed).toMatch(/Index Cond: .*walletAddress.*poolAddress.*\$date.*\$date/s);
    expect(indexed).not.toMatch(/Filter: .*(\$date|jsonb)/);
    expect(await plan('scanned', [])).toMatch(/Seq Scan on scanned/);
  });

  it("answers an equality on a unique index's string field from that index, and stays exact about types", async () => {
    interface Key extends StoredDocument {
      keyHash: string | number;
    }
    const keys = new SqlCollection<Key>(
      executor,
      { name: 'keys', unique: [{ name: 'hash', fields: ['keyHash'] }] },
      () => new Date(),
    );
    await keys.ensureStorage();
    await keys.insertMany(Array.from({ length: 300 }, (_, i) => ({ keyHash: `h${i}` })));
    await keys.insert({ keyHash: 7 });
    const params = new SqlParams();
    const where = parseFilter({ keyHash: 'h42' }).map((condition) => conditionSql(condition, params));
    await client.query('SET enable_seqscan = off');
    const rows = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM "keys" WHERE ${where.join(' AND ')}`,
      params.values,
    );
    expect(rows.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(
      /Index Scan using keys__hash|Bitmap Index Scan on keys__hash/,
    );
    expect((await keys.find({ keyHash: 'h42' })).map((key) => key.keyHash)).toEqual(['h42']);
    expect((await keys.find({ keyHash: 7 })).map((key) => key.keyHash)).toEqual([7]);
    expect(await keys.find({ keyHash: '7' })).toEqual([]);
  });

  it('finds the same documents with the index as without it', async () => {
    const found = async (name: string) => {
      const points = new SqlCollection<Point>(executor, { name }, () => new Date());
      return (
        await points.find(
          { walletAddress: 'G7', at: { $gte: start, $lt: new Date(start.getTime() + 3.6e6) } },
          { sort: { field: 'at', direction: 'desc' } },
        )
      ).map((point) => point.at.toISOString());
    };
    const indexed = await found('looked_up');
    expect(indexed).toEqual(await found('scanned'));
    expect(indexed).toHaveLength(2);
  });
});
