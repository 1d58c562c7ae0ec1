import { mkdirSync } from 'node:fs';
import { PGlite, Transaction } from '@electric-sql/pglite';
import { SqlExecutor } from './sql-executor';

/** Embedded PostgreSQL (PGlite, WASM) in memory or in a folder. It runs one statement at a time. */
export class PgliteExecutor implements SqlExecutor {
  private constructor(private readonly db: PGlite) {}

  /** `dataDir` undefined keeps everything in memory. */
  static async open(dataDir: string | undefined): Promise<PgliteExecutor> {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    return new PgliteExecutor(await PGlite.create(dataDir ? { dataDir } : {}));
  }

  async query<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.db.query<R>(sql, params)).rows;
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => work(new PgliteTransactionExecutor(tx)));
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}

class PgliteTransactionExecutor implements SqlExecutor {
  constructor(private readonly tx: Transaction) {}

  async query<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.tx.query<R>(sql, params)).rows;
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return work(this);
  }

  async close(): Promise<void> {
    // The embedded database owns the transaction.
  }
}
