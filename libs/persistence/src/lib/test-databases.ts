import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One database an integration test runs on, as a `DATABASE_URL`, and how to throw it away afterwards. */
export interface TestDatabase {
  /** `sqlite`, `postgres` or `mongodb`: what a test name says. */
  name: string;
  url: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** SQLite in memory (one connection's own: the default), or on a file that outlives the app (a restart test). */
  sqlite?: 'memory' | 'file';
  env?: NodeJS.ProcessEnv;
}

/**
 * The databases an app's integration test can reach: SQLite always; PostgreSQL when `TEST_POSTGRES_URL` is set (a
 * throw-away schema); MongoDB when `TEST_MONGO_URL` is set (a throw-away database). `skipped` says which were left
 * out and why, for the test to print: a driver never silently goes untested.
 */
export function testDatabases(
  prefix: string,
  options: TestDatabaseOptions = {},
): { databases: TestDatabase[]; skipped: string[] } {
  const env = options.env ?? process.env;
  if (!/^[a-z][a-z0-9_]{0,30}$/.test(prefix)) throw new Error(`test database prefix "${prefix}" is not an identifier`);
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const file = join(tmpdir(), `${name}.sqlite`);
  const databases: TestDatabase[] = [
    options.sqlite === 'file'
      ? {
          name: 'sqlite',
          url: `sqlite://${file}`,
          drop: async () => ['', '-wal', '-shm'].forEach((end) => rmSync(`${file}${end}`, { force: true })),
        }
      : { name: 'sqlite', url: 'sqlite://memory', drop: async () => undefined },
  ];
  const skipped: string[] = [];
  const postgres = env['TEST_POSTGRES_URL'];
  if (postgres) {
    const url = new URL(postgres);
    url.searchParams.set('schema', name);
    databases.push({ name: 'postgres', url: url.toString(), drop: () => dropSchema(postgres, name) });
  } else {
    skipped.push('PostgreSQL skipped: TEST_POSTGRES_URL unset');
  }
  const mongo = env['TEST_MONGO_URL'];
  if (mongo) {
    const url = new URL(mongo);
    url.pathname = `/${name}`;
    databases.push({ name: 'mongodb', url: url.toString(), drop: () => dropMongoDatabase(url.toString()) });
  } else {
    skipped.push('MongoDB skipped: TEST_MONGO_URL unset');
  }
  return { databases, skipped };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

async function dropMongoDatabase(url: string): Promise<void> {
  const { createConnection } = await import('mongoose');
  const connection = await createConnection(url, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    await connection.dropDatabase();
  } finally {
    await connection.close();
  }
}
