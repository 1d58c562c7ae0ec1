import { Client, Pool, PoolClient, types } from 'pg';
import { SqlExecutor } from './sql-executor';

// int8 counts come back as strings by default; our counts are small.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

/** PostgreSQL through a `pg` pool. `?schema=` in the URL keeps a service's tables in their own schema. */
export class PgExecutor implements SqlExecutor {
  private constructor(private readonly pool: Pool) {}

  static async connect(url: string): Promise<PgExecutor> {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema');
    parsed.searchParams.delete('schema');
    if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new Error('the schema parameter of the database URL must be a lower-case identifier');
    }
    const connectionString = parsed.toString();
    if (schema) {
      const admin = new Client({ connectionString, connectionTimeoutMillis: 5000 });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      } finally {
        await admin.end();
      }
    }
    const pool = new Pool({
      connectionString,
      max: 10,
      connectionTimeoutMillis: 5000,
      options: schema ? `-c search_path=${schema}` : undefined,
    });
    pool.on('error', () => undefined); // an idle client dropped by the server is replaced on next use
    return new PgExecutor(pool);
  }

  async query<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.pool.query(sql, params)).rows as R[];
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(new PgClientExecutor(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

class PgClientExecutor implements SqlExecutor {
  constructor(private readonly client: PoolClient) {}

  async query<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.client.query(sql, params)).rows as R[];
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return work(this);
  }

  async close(): Promise<void> {
    // The pool owns the client.
  }
}
