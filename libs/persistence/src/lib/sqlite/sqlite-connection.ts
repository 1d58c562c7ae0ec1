import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** What SQLite stores and binds for us: JSON text, ids, numbers, epoch milliseconds. */
export type SqliteValue = string | number | null;

/**
 * How long a write waits for another connection's write lock (another process on the same file) before it fails
 * with SQLITE_BUSY. Our transactions last microseconds, so five seconds only runs out when something is stuck.
 */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * FULL: every commit waits until the write-ahead log is on the disk (fsync), so an acknowledged write survives a
 * power loss, not only a process kill. ADR 001 has its measured cost per commit against NORMAL.
 */
export const SYNCHRONOUS = 'FULL';

/** Compiled statements kept per connection; a few dozen distinct shapes are in use, this bounds a runaway. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The one connection of a SQLite store. better-sqlite3 runs each statement synchronously, so within one process
 * two callers never interleave inside a transaction; across processes, writes take the database's write lock at
 * `BEGIN IMMEDIATE` and wait for it up to `BUSY_TIMEOUT_MS`.
 */
export class SqliteConnection {
  private readonly statements = new Map<string, Database.Statement<SqliteValue[]>>();
  private readonly immediate: (work: () => unknown) => unknown;

  private constructor(private readonly db: Database.Database) {
    this.immediate = db.transaction((work: () => unknown) => work()).immediate;
  }

  /** `file` undefined: a private database in memory. Otherwise the file (and its folder) is created if missing. */
  static open(file: string | undefined): SqliteConnection {
    if (file === undefined) return new SqliteConnection(new Database(':memory:', { timeout: BUSY_TIMEOUT_MS }));
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    try {
      // WAL: readers never block the writer, and a commit is one append to the log instead of a rewrite of pages.
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`SQLite kept journal mode "${String(mode)}" for ${file}; WAL is required`);
      db.pragma(`synchronous = ${SYNCHRONOUS}`);
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteConnection(db);
  }

  all<R>(sql: string, params: SqliteValue[] = []): R[] {
    return this.statement(sql).all(...params) as R[];
  }

  get<R>(sql: string, params: SqliteValue[] = []): R | undefined {
    return this.statement(sql).get(...params) as R | undefined;
  }

  /** Runs a write; returns how many rows it changed. */
  run(sql: string, params: SqliteValue[] = []): number {
    return this.statement(sql).run(...params).changes;
  }

  /** Statements without parameters, run once (schema). */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** Runs `work` between `BEGIN IMMEDIATE` and `COMMIT`; rolls back when it throws. `work` must not await. */
  writeTransaction<R>(work: () => R): R {
    return this.immediate(work) as R;
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  private statement(sql: string): Database.Statement<SqliteValue[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<SqliteValue[]>(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        this.statements.delete(this.statements.keys().next().value as string);
      }
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
