import {
  Collection,
  CollectionDefinition,
  Filter,
  FindOptions,
  NewDocument,
  StoredDocument,
  Update,
  UpdateResult,
} from '../collection';
import { fromJson, toJson } from '../document-json';
import { insertFreeingExpiredKeys, writeFreeingExpiredKeys } from '../errors';
import {
  checkLimit,
  checkSort,
  checkUpdate,
  expiryOf,
  parseFilter,
  planUpdate,
  splitNewDocument,
  updateResultOf,
} from '../query';
import { SqlExecutor, uniqueViolation } from './sql-executor';
import { SqlParams, conditionSql, lookupIndexColumns, orderSql, uniqueIndexColumns } from './sql-query';

interface Row {
  id: string;
  doc: Record<string, unknown>;
}

/** One collection on PostgreSQL: a table `(id text primary key, doc jsonb, expires_at timestamptz)`. */
export class SqlCollection<T extends StoredDocument> implements Collection<T> {
  readonly name: string;
  private readonly table: string;

  constructor(
    private readonly db: SqlExecutor,
    private readonly definition: CollectionDefinition,
    private readonly now: () => Date,
  ) {
    this.name = definition.name;
    this.table = `"${definition.name}"`;
  }

  /** Creates the table and indexes; a lock keeps two processes from racing on the same DDL. */
  async ensureStorage(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`rp-ddl:${this.name}`]);
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (id text PRIMARY KEY, doc jsonb NOT NULL, expires_at timestamptz)`,
      );
      for (const index of this.definition.unique ?? []) {
        const columns = uniqueIndexColumns(index.fields);
        await tx.query(
          `CREATE UNIQUE INDEX IF NOT EXISTS "${this.indexName(index.name)}" ON ${this.table} (${columns})`,
        );
      }
      for (const index of this.definition.indexes ?? []) {
        await tx.query(
          `CREATE INDEX IF NOT EXISTS "${this.indexName(index.name)}" ON ${this.table} (${lookupIndexColumns(index)})`,
        );
      }
      if (this.definition.ttl) {
        await tx.query(
          `CREATE INDEX IF NOT EXISTS "${this.name}__expires_at" ON ${this.table} (expires_at) WHERE expires_at IS NOT NULL`,
        );
      }
    });
  }

  async insert(document: NewDocument<T>): Promise<T> {
    const { id, fields } = splitNewDocument(document);
    await this.retryAfterSweep(() =>
      this.db.query(`INSERT INTO ${this.table} (id, doc, expires_at) VALUES ($1, $2::jsonb, $3)`, [
        id,
        JSON.stringify(toJson(fields)),
        expiryOf(fields, this.definition.ttl),
      ]),
    );
    return { id, ...fields } as unknown as T;
  }

  /** One statement whatever the count (arrays, not one parameter per value); duplicates skipped by ON CONFLICT. */
  async insertMany(documents: readonly NewDocument<T>[]): Promise<number> {
    if (documents.length === 0) return 0;
    const rows = documents.map((document) => splitNewDocument(document));
    const write = async () => {
      const [row] = await this.db.query<{ n: number }>(
        `WITH added AS (INSERT INTO ${this.table} (id, doc, expires_at) ` +
          `SELECT * FROM unnest($1::text[], $2::jsonb[], $3::timestamptz[]) ON CONFLICT DO NOTHING RETURNING 1) ` +
          `SELECT count(*)::int AS n FROM added`,
        [
          rows.map((r) => r.id),
          rows.map((r) => JSON.stringify(toJson(r.fields))),
          rows.map((r) => expiryOf(r.fields, this.definition.ttl)),
        ],
      );
      return Number(row.n);
    };
    return insertFreeingExpiredKeys(rows.length, write, this.definition.ttl ? () => this.sweepExpired() : undefined);
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    return (await this.find(filter, { ...options, limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const params = new SqlParams();
    const where = this.whereSql(filter, params);
    const order = orderSql(checkSort(options.sort));
    const limit = checkLimit(options.limit);
    const rows = await this.db.query<Row>(
      `SELECT id, doc FROM ${this.table} WHERE ${where} ${order}${limit ? ` LIMIT ${params.add(limit)}` : ''}`,
      params.values,
    );
    return rows.map((row) => this.toDocument(row));
  }

  async count(filter: Filter): Promise<number> {
    const params = new SqlParams();
    const where = this.whereSql(filter, params);
    const [row] = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.table} WHERE ${where}`,
      params.values,
    );
    return Number(row.n);
  }

  async delete(filter: Filter): Promise<number> {
    const params = new SqlParams();
    const where = this.whereSql(filter, params);
    const [row] = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${this.table} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      params.values,
    );
    return Number(row.n);
  }

  async updateOne(filter: Filter, update: Update<T>, options: { upsert?: boolean } = {}): Promise<UpdateResult<T>> {
    const checked = checkUpdate(update);
    const conditions = parseFilter(filter);
    return this.retryAfterSweep(() =>
      this.db.transaction(async (tx) => {
        if (options.upsert) {
          // Serialises upserts of the same filter, so two racing callers leave one document.
          await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
            `${this.name}:${canonical(filter)}`,
          ]);
        }
        const params = new SqlParams();
        const where = this.whereSql(filter, params);
        const [row] = await tx.query<Row>(
          `SELECT id, doc FROM ${this.table} WHERE ${where} ORDER BY id COLLATE "C" LIMIT 1 FOR UPDATE`,
          params.values,
        );
        const plan = planUpdate(
          row && { id: row.id, document: fromJson(row.doc) as Record<string, unknown> },
          conditions,
          checked,
          options.upsert ?? false,
        );
        if (plan.write === 'update') {
          await tx.query(`UPDATE ${this.table} SET doc = $2::jsonb, expires_at = $3 WHERE id = $1`, [
            plan.id,
            JSON.stringify(toJson(plan.document)),
            expiryOf(plan.document, this.definition.ttl),
          ]);
        } else if (plan.write === 'insert') {
          await tx.query(`INSERT INTO ${this.table} (id, doc, expires_at) VALUES ($1, $2::jsonb, $3)`, [
            plan.id,
            JSON.stringify(toJson(plan.document)),
            expiryOf(plan.document, this.definition.ttl),
          ]);
        }
        return updateResultOf<T>(plan);
      }),
    );
  }

  /** Physically removes expired documents (reads already ignore them). */
  async sweepExpired(): Promise<number> {
    if (!this.definition.ttl) return 0;
    const [row] = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${this.table} WHERE expires_at <= $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [this.now()],
    );
    return Number(row.n);
  }

  private whereSql(filter: Filter, params: SqlParams): string {
    const clauses = parseFilter(filter).map((condition) => conditionSql(condition, params));
    if (this.definition.ttl) clauses.push(`(expires_at IS NULL OR expires_at > ${params.add(this.now())})`);
    return clauses.length > 0 ? clauses.join(' AND ') : 'TRUE';
  }

  private toDocument(row: Row): T {
    return { id: row.id, ...(fromJson(row.doc) as Record<string, unknown>) } as unknown as T;
  }

  private indexName(index: string): string {
    return `${this.name}__${index}`;
  }

  private retryAfterSweep<R>(write: () => Promise<R>): Promise<R> {
    return writeFreeingExpiredKeys(
      this.name,
      write,
      (error) => this.duplicateIndexOf(error),
      this.definition.ttl ? () => this.sweepExpired() : undefined,
    );
  }

  /** The index a unique violation names: ours are `<collection>__<index>`, the primary key is `id`. */
  private duplicateIndexOf(error: unknown): string | undefined {
    const violation = uniqueViolation(error);
    if (!violation) return undefined;
    const prefix = `${this.name}__`;
    if (violation.constraint.startsWith(prefix)) return violation.constraint.slice(prefix.length);
    return violation.constraint === `${this.name}_pkey` ? 'id' : violation.constraint;
  }
}

/** The same filter always gives the same text (keys sorted, dates as ISO). */
export function canonical(filter: Filter): string {
  return JSON.stringify(
    Object.keys(filter)
      .sort()
      .map((key) => [key, toJson(filter[key])]),
  );
}
