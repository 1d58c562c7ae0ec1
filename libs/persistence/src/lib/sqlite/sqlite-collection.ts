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
  Condition,
  checkLimit,
  checkSort,
  checkUpdate,
  expiryOf,
  parseFilter,
  planUpdate,
  splitNewDocument,
  updateResultOf,
} from '../query';
import { SqliteConnection } from './sqlite-connection';
import { SqliteParams, conditionSql, lookupIndexColumns, orderSql, uniqueIndexColumns } from './sqlite-query';

interface Row {
  id: string;
  doc: string;
}

/**
 * One collection on SQLite: a table `(id TEXT PRIMARY KEY, doc TEXT, expires_at INTEGER)` holding each document as
 * JSON text (dates as `{"$date": iso}`) and, for TTL collections, its expiry in epoch milliseconds. Unique indexes
 * are expression indexes on `json_extract` and `json_type` of the indexed fields.
 */
export class SqliteCollection<T extends StoredDocument> implements Collection<T> {
  readonly name: string;
  private readonly table: string;

  constructor(
    private readonly db: SqliteConnection,
    private readonly definition: CollectionDefinition,
    private readonly now: () => Date,
  ) {
    this.name = definition.name;
    this.table = `"${definition.name}"`;
  }

  /** Creates the table and indexes; the write lock keeps two processes from racing on the same schema change. */
  async ensureStorage(): Promise<void> {
    this.db.writeTransaction(() => {
      this.db.exec(
        `CREATE TABLE IF NOT EXISTS ${this.table} ` +
          `(id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL, expires_at INTEGER) STRICT`,
      );
      for (const index of this.definition.unique ?? []) {
        this.db.exec(
          `CREATE UNIQUE INDEX IF NOT EXISTS "${this.indexName(index.name)}" ` +
            `ON ${this.table} (${uniqueIndexColumns(index.fields)})`,
        );
      }
      for (const index of this.definition.indexes ?? []) {
        this.db.exec(
          `CREATE INDEX IF NOT EXISTS "${this.indexName(index.name)}" ON ${this.table} (${lookupIndexColumns(index)})`,
        );
      }
      if (this.definition.ttl) {
        this.db.exec(
          `CREATE INDEX IF NOT EXISTS "${this.name}__expires_at" ON ${this.table} (expires_at) ` +
            `WHERE expires_at IS NOT NULL`,
        );
      }
    });
  }

  async insert(document: NewDocument<T>): Promise<T> {
    const { id, fields } = splitNewDocument(document);
    await this.retryAfterSweep(async () =>
      this.db.run(`INSERT INTO ${this.table} (id, doc, expires_at) VALUES (?, ?, ?)`, [
        id,
        JSON.stringify(toJson(fields)),
        this.expiryMs(fields),
      ]),
    );
    return { id, ...fields } as unknown as T;
  }

  /** One write transaction for the whole batch; duplicates skipped by INSERT OR IGNORE. */
  async insertMany(documents: readonly NewDocument<T>[]): Promise<number> {
    if (documents.length === 0) return 0;
    const rows = documents.map((document) => splitNewDocument(document));
    const write = async () =>
      this.db.writeTransaction(() =>
        rows.reduce(
          (added, { id, fields }) =>
            added +
            this.db.run(`INSERT OR IGNORE INTO ${this.table} (id, doc, expires_at) VALUES (?, ?, ?)`, [
              id,
              JSON.stringify(toJson(fields)),
              this.expiryMs(fields),
            ]),
          0,
        ),
      );
    return insertFreeingExpiredKeys(rows.length, write, this.definition.ttl ? () => this.sweepExpired() : undefined);
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    return (await this.find(filter, { ...options, limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const params = new SqliteParams();
    const where = this.whereSql(parseFilter(filter), params);
    const order = orderSql(checkSort(options.sort));
    const limit = checkLimit(options.limit);
    const rows = this.db.all<Row>(
      `SELECT id, doc FROM ${this.table} WHERE ${where} ${order}${limit ? ` LIMIT ${params.add(limit)}` : ''}`,
      params.values,
    );
    return rows.map((row) => ({ id: row.id, ...this.decode(row.doc) }) as unknown as T);
  }

  async count(filter: Filter): Promise<number> {
    const params = new SqliteParams();
    const where = this.whereSql(parseFilter(filter), params);
    return this.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${this.table} WHERE ${where}`, params.values)?.n ?? 0;
  }

  async delete(filter: Filter): Promise<number> {
    const params = new SqliteParams();
    const where = this.whereSql(parseFilter(filter), params);
    return this.db.run(`DELETE FROM ${this.table} WHERE ${where}`, params.values);
  }

  /**
   * Reads the first match and writes in one `BEGIN IMMEDIATE` transaction: it holds the database's write lock
   * from the read on, so concurrent upserts of one key, in this process or another, leave one document.
   */
  async updateOne(filter: Filter, update: Update<T>, options: { upsert?: boolean } = {}): Promise<UpdateResult<T>> {
    const checked = checkUpdate(update);
    const conditions = parseFilter(filter);
    return this.retryAfterSweep(async () =>
      this.db.writeTransaction(() => {
        const params = new SqliteParams();
        const where = this.whereSql(conditions, params);
        const row = this.db.get<Row>(
          `SELECT id, doc FROM ${this.table} WHERE ${where} ORDER BY id LIMIT 1`,
          params.values,
        );
        const plan = planUpdate(
          row && { id: row.id, document: this.decode(row.doc) },
          conditions,
          checked,
          options.upsert ?? false,
        );
        if (plan.write === 'update') {
          this.db.run(`UPDATE ${this.table} SET doc = ?, expires_at = ? WHERE id = ?`, [
            JSON.stringify(toJson(plan.document)),
            this.expiryMs(plan.document),
            plan.id,
          ]);
        } else if (plan.write === 'insert') {
          this.db.run(`INSERT INTO ${this.table} (id, doc, expires_at) VALUES (?, ?, ?)`, [
            plan.id,
            JSON.stringify(toJson(plan.document)),
            this.expiryMs(plan.document),
          ]);
        }
        return updateResultOf<T>(plan);
      }),
    );
  }

  /** Physically removes expired documents (reads already ignore them). */
  async sweepExpired(): Promise<number> {
    if (!this.definition.ttl) return 0;
    return this.db.run(`DELETE FROM ${this.table} WHERE expires_at <= ?`, [this.now().getTime()]);
  }

  private whereSql(conditions: Condition[], params: SqliteParams): string {
    const clauses = conditions.map((condition) => conditionSql(condition, params));
    if (this.definition.ttl) clauses.push(`(expires_at IS NULL OR expires_at > ${params.add(this.now().getTime())})`);
    return clauses.length > 0 ? clauses.join(' AND ') : 'TRUE';
  }

  private expiryMs(fields: Record<string, unknown>): number | null {
    return expiryOf(fields, this.definition.ttl)?.getTime() ?? null;
  }

  private decode(doc: string): Record<string, unknown> {
    return fromJson(JSON.parse(doc)) as Record<string, unknown>;
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

  /** The index a unique violation names: ours are `<collection>__<index>`; the primary key is `id`. */
  private duplicateIndexOf(error: unknown): string | undefined {
    // By code, not `instanceof SqliteError`: the native addon keeps the error class of the first copy of
    // better-sqlite3 loaded in the process, and Jest loads one copy per test file.
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'id';
    if (code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
    const named = /index '([^']+)'/.exec(String(message))?.[1] ?? 'unknown';
    const prefix = `${this.name}__`;
    return named.startsWith(prefix) ? named.slice(prefix.length) : named;
  }
}
