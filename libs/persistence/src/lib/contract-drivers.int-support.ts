/**
 * The drivers the persistence contract runs on: SQLite always, in memory and on a file; PostgreSQL when
 * TEST_POSTGRES_URL is set (in a throw-away schema); MongoDB when TEST_MONGO_URL is set (in a throw-away database).
 * A driver the run cannot reach is not silently absent: its cases are declared and reported as skipped, with the
 * reason in the suite's name, so the run's summary line counts them (`N passed, N failed, N skipped`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseTarget } from './database-url';

export interface DriverUnderTest {
  name: string;
  target: DatabaseTarget;
  cleanup?: () => Promise<void>;
  /** Why the run cannot reach this driver; its cases are then reported as skipped. */
  unreachable?: string;
}

export const suffix = randomBytes(4).toString('hex');
const sqliteDir = mkdtempSync(join(tmpdir(), 'rp-contract-'));
const drivers: DriverUnderTest[] = [
  { name: 'sqlite in memory', target: { driver: 'sqlite', file: undefined } },
  {
    name: 'sqlite on a file',
    target: { driver: 'sqlite', file: join(sqliteDir, 'contract.sqlite') },
    cleanup: async () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
];

const postgresUrl = process.env['TEST_POSTGRES_URL'];
if (postgresUrl) {
  const schema = `contract_${suffix}`;
  const url = new URL(postgresUrl);
  url.searchParams.set('schema', schema);
  drivers.push({
    name: 'postgres',
    target: { driver: 'postgres', url: url.toString() },
    cleanup: async () => {
      const client = new Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  });
} else {
  drivers.push({ name: 'postgres', target: { driver: 'postgres', url: '' }, unreachable: 'TEST_POSTGRES_URL unset' });
}

const mongoUrl = process.env['TEST_MONGO_URL'];
if (mongoUrl) {
  const url = new URL(mongoUrl);
  url.pathname = `/contract_${suffix}`;
  drivers.push({ name: 'mongodb', target: { driver: 'mongodb', url: url.toString() } });
} else {
  drivers.push({ name: 'mongodb', target: { driver: 'mongodb', url: '' }, unreachable: 'TEST_MONGO_URL unset' });
}

const skipped = drivers.filter((d) => d.unreachable).map((d) => ` (${d.name} skipped: ${d.unreachable})`);
const reached = drivers.filter((d) => !d.unreachable).map((d) => d.name);
process.stdout.write(`persistence contract drivers: ${reached.join(', ')}${skipped.join('')}\n`);

/** Declares `cases` once per driver, as skipped (with the reason) where the run cannot reach it. */
export function onEveryDriver(title: string, cases: (driver: DriverUnderTest) => void): void {
  for (const driver of drivers) {
    const declare = driver.unreachable ? describe.skip : describe;
    declare(`${title} on ${driver.name}${driver.unreachable ? ` (skipped: ${driver.unreachable})` : ''}`, () =>
      cases(driver),
    );
  }
}
