import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { type StoredDocument, openDocumentStore } from '@rp/persistence';
import { Payment, payment } from './payment';
import { type Timing, measure, table } from './stats';

const DOCUMENTS = Number(process.env['BENCH_DOCUMENTS'] ?? 10_000);
const COMMITS = Number(process.env['BENCH_COMMITS'] ?? 500);
/** Documents of one `insertMany`: a monitor batch job's readings (RMS_MONITOR_BATCH_SIZE wallets, one pool). */
const BATCH = Number(process.env['BENCH_BATCH'] ?? 500);

/** A health reading as the monitor's batch job writes it (ADR 024). */
const reading = (round: number, n: number) => ({
  id: `${round}:G${String(n).padStart(55, 'A')}:C${'B'.repeat(55)}`,
  walletAddress: `G${String(n).padStart(55, 'A')}`,
  poolAddress: `C${'B'.repeat(55)}`,
  at: new Date(),
  healthFactor: 1 + (n % 100) / 100,
  riskLevel: 'low',
  triggers: [] as string[],
  expiresAt: new Date(Date.now() + 86_400_000),
});

const megabytes = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** RSS figures, in bytes, printed by a child process on its last line. */
function childRss(args: string[]): Record<string, number> {
  const child = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`${args.join(' ')} failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as Record<string, number>;
}

/**
 * Resident memory of plain node processes holding nothing but what is measured: a bare node, and the SQLite store
 * alone filled with `DOCUMENTS` payments. The store is compiled to JavaScript first (under the workspace, so that
 * better-sqlite3 resolves), since SWC's register alone costs about 70 MB and production runs compiled code.
 */
function memory(dir: string): Record<string, number> {
  const root = resolve(__dirname, '../../..');
  const compiled = mkdtempSync(join(root, 'tmp', 'bench-persistence-'));
  try {
    const sources = ['libs/persistence/src/lib/sqlite/sqlite-document-store.ts', 'tools/bench/src/payment.ts'];
    const tsc = spawnSync(
      join(root, 'node_modules/.bin/tsc'),
      [
        ...['--outDir', compiled, '--rootDir', root, '--module', 'commonjs', '--moduleResolution', 'bundler'],
        ...['--target', 'es2022', '--esModuleInterop', '--skipLibCheck', '--types', 'node', '--strict'],
        ...sources.map((source) => join(root, source)),
      ],
      { encoding: 'utf8' },
    );
    if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
    const bare = childRss(['-e', 'process.stdout.write(JSON.stringify({ bare: process.memoryUsage().rss }))']);
    const store = childRss([
      join(root, 'tools/bench/bin/sqlite-store-memory.cjs'),
      compiled,
      join(dir, 'memory.sqlite'),
      String(DOCUMENTS),
    ]);
    return Object.fromEntries(
      Object.entries({ ...bare, ...store }).map(([name, value]) => [
        name,
        name === 'documents' ? value : megabytes(value),
      ]),
    );
  } finally {
    rmSync(compiled, { recursive: true, force: true });
  }
}

/**
 * What one commit costs with `synchronous=FULL` (the store's setting) against NORMAL, on one table shaped like the
 * store's, in WAL mode on this machine's disk: the same autocommit insert of one document, one at a time.
 */
async function commitCost(dir: string, synchronous: 'FULL' | 'NORMAL'): Promise<Timing> {
  const db = new Database(join(dir, `commit-${synchronous.toLowerCase()}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL, expires_at INTEGER) STRICT');
  const insert = db.prepare('INSERT INTO t (id, doc, expires_at) VALUES (?, ?, NULL)');
  let n = 0;
  try {
    return await measure(`commit of one insert, WAL, synchronous=${synchronous}`, COMMITS, async () => {
      n += 1;
      insert.run(`d${n}`, JSON.stringify(payment(n)));
    });
  } finally {
    db.close();
  }
}

/**
 * The embedded store: per-commit cost of `synchronous=FULL` against NORMAL, the store's own insert and reads on a
 * table of `DOCUMENTS` documents, and the resident memory of a process holding the store and those documents.
 */
async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rp-bench-persistence-'));
  try {
    const full = await commitCost(dir, 'FULL');
    const normal = await commitCost(dir, 'NORMAL');

    const store = await openDocumentStore({ driver: 'sqlite', file: join(dir, 'store.sqlite') });
    const payments = await store.collection<Payment>({
      name: 'payments',
      unique: [{ name: 'tx_hash', fields: ['txHash'] }],
    });
    const started = performance.now();
    for (let n = 0; n < DOCUMENTS; n += 1) await payments.insert(payment(n));
    const insertSeconds = (performance.now() - started) / 1000;

    let n = DOCUMENTS;
    const timings: Timing[] = [
      full,
      normal,
      await measure('store insert (FULL), table of 10,000+', COMMITS, async () => payments.insert(payment((n += 1)))),
      await measure('findOne by a unique field (indexed)', 2000, async () =>
        payments.findOne({ txHash: (n % DOCUMENTS).toString(16).padStart(64, '0') }),
      ),
      await measure('find pending, sorted by paidAt desc, limit 20 (table scan)', 200, async () =>
        payments.find({ status: 'pending' }, { sort: { field: 'paidAt', direction: 'desc' }, limit: 20 }),
      ),
      await measure('count of one month by date range (table scan)', 200, async () =>
        payments.count({ paidAt: { $gte: new Date('2026-11-22T00:00:00Z'), $lt: new Date('2026-11-23T00:00:00Z') } }),
      ),
    ];
    // The health tiers' lookup indexes (apps/notifications health-tiers.ts, ADR 034) against none: what they cost a
    // monitor batch's write, and what they save a read of one wallet's day among every wallet's readings.
    const indexes = [
      { name: 'wallet_at', fields: ['walletAddress'], dateRange: 'at' },
      { name: 'at', fields: [], dateRange: 'at' },
    ];
    for (const indexed of [false, true]) {
      const readings = await store.collection<StoredDocument>({
        name: indexed ? 'health_rounds_indexed' : 'health_rounds',
        ttl: { field: 'expiresAt' },
        ...(indexed && { indexes }),
      });
      const how = indexed ? 'lookup indexes' : 'no index';
      let round = 0;
      timings.push(
        await measure(`insertMany of ${BATCH} readings (one monitor batch job, one commit; ${how})`, 50, async () => {
          round += 1;
          await readings.insertMany(Array.from({ length: BATCH }, (_, i) => reading(round, i)));
        }),
      );
      const since = new Date(Date.now() - 86_400_000);
      let wallet = 0;
      timings.push(
        await measure(`one wallet's day among ${round * BATCH} readings, newest first (${how})`, 200, async () => {
          wallet = (wallet + 7) % BATCH;
          const found = await readings.find(
            { walletAddress: reading(0, wallet).walletAddress, at: { $gte: since } },
            { sort: { field: 'at', direction: 'desc' }, limit: 2000 },
          );
          if (found.length !== round) throw new Error(`read ${found.length} readings of a wallet, not ${round}`);
        }),
      );
    }
    await store.close();
    const rss = memory(dir);
    process.stdout.write(`\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n\n`);
    process.stdout.write(`${table(timings)}\n\n`);
    process.stdout.write(
      [
        '| measurement | value |',
        '|---|---|',
        `| ${DOCUMENTS} inserts through the store, one commit each (FULL) | ${insertSeconds.toFixed(1)} s |`,
        `| RSS of a bare node process | ${rss['bare']} MB |`,
        `| RSS with the SQLite store module and better-sqlite3 loaded | ${rss['loaded']} MB |`,
        `| RSS with the store open on a file | ${rss['opened']} MB |`,
        `| RSS with the store holding ${DOCUMENTS} documents (after 1,000 indexed reads) | ${rss['filled']} MB |`,
        `| RSS after reading all ${rss['documents']} documents back at once | ${rss['afterReadingAll']} MB |`,
      ].join('\n') + '\n',
    );
    process.stdout.write(`${JSON.stringify({ timings, insertSeconds, rss })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
