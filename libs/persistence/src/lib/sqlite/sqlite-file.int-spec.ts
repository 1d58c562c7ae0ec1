/**
 * The SQLite file under a second process: a writer SIGKILLed in the middle of its writes loses none it had
 * acknowledged and leaves a sound file, and two processes upserting one key leave one document with every
 * increment. The second process is `sqlite-file-writer.cjs`. Nothing here depends on how fast the machine is.
 */
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StoredDocument } from '../collection';
import { SqliteDocumentStore } from './sqlite-document-store';

const WRITER = join(__dirname, 'sqlite-file-writer.cjs');
/** Acknowledged writes to wait for before the kill; enough that the kill lands among writes, not before them. */
const ACKNOWLEDGED_BEFORE_KILL = 300;

interface Payment extends StoredDocument {
  reference: string;
  amount: string;
  paidAt: Date;
  memo: string;
}

interface Counter extends StoredDocument {
  wallet: string;
  attempts: number;
}

/** The writer process, its complete stdout lines as they arrive, and its exit. */
function startWriter(args: string[], onLine: (line: string, writer: ChildProcessWithoutNullStreams) => void) {
  const writer = spawn(process.execPath, [WRITER, ...args], { stdio: 'pipe' });
  let pending = '';
  let errors = '';
  writer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line, writer);
  });
  writer.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    writer.on('close', (code, signal) => resolve({ code, signal, stderr: errors })),
  );
  return { writer, exited };
}

describe('a SQLite file shared with another process', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rp-sqlite-file-'));
    file = join(dir, 'payments.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged insert of a writer killed with SIGKILL mid-writes, in a sound file', async () => {
    const acknowledged: string[] = [];
    const { exited } = startWriter(['insert', file], (line, writer) => {
      acknowledged.push(line);
      if (acknowledged.length === ACKNOWLEDGED_BEFORE_KILL) writer.kill('SIGKILL');
    });
    const exit = await exited;
    // stderr rides along so that a writer that died on its own shows why.
    expect({ signal: exit.signal, stderr: exit.stderr }).toMatchObject({ signal: 'SIGKILL' });
    expect(acknowledged.length).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL);
    // The writer never closed the database: its write-ahead log is still there, to be recovered on open.
    expect(existsSync(`${file}-wal`)).toBe(true);

    const raw = new Database(file);
    try {
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }

    const store = SqliteDocumentStore.open(file);
    try {
      const payments = await store.collection<Payment>({
        name: 'payments',
        unique: [{ name: 'reference', fields: ['reference'] }],
      });
      const stored = new Map((await payments.find({})).map((payment) => [payment.id, payment]));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      // Writes are sequential: at most the one insert that committed before its id could be printed is extra.
      expect(stored.size - acknowledged.length).toBeGreaterThanOrEqual(0);
      expect(stored.size - acknowledged.length).toBeLessThanOrEqual(1);
      const last = Number(acknowledged[acknowledged.length - 1].slice(1));
      expect(stored.get(acknowledged[acknowledged.length - 1])).toEqual({
        id: acknowledged[acknowledged.length - 1],
        reference: `ref-${last}`,
        amount: '170141183460469231731687303715884105727',
        paidAt: new Date(Date.UTC(2026, 10, 22, 0, 0, 0, last)),
        memo: 'x'.repeat(256),
      });
      expect(await payments.count({ reference: `ref-${last}` })).toBe(1);
      await payments.insert({ reference: 'after-recovery', amount: '1', paidAt: new Date(), memo: '' });
      expect(await payments.count({})).toBe(stored.size + 1);
    } finally {
      await store.close();
    }
  }, 180_000);

  it('leaves one document with every increment when two processes upsert the same key', async () => {
    const rounds = 400;
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve));
    let childInserted: number | undefined;
    const { exited } = startWriter(['upsert', file, String(rounds)], (line) => {
      if (line === 'ready') started();
      const done = /^done (\d+)$/.exec(line);
      if (done) childInserted = Number(done[1]);
    });
    const store = SqliteDocumentStore.open(file);
    try {
      await Promise.race([ready, exited.then((exit) => Promise.reject(new Error(`writer exited: ${exit.stderr}`)))]);
      const counters = await store.collection<Counter>({
        name: 'counters',
        unique: [{ name: 'wallet', fields: ['wallet'] }],
      });
      let parentInserted = 0;
      for (let n = 0; n < rounds; n += 1) {
        const result = await counters.updateOne({ wallet: 'GSHARED' }, { inc: { attempts: 1 } }, { upsert: true });
        if (result.upserted) parentInserted += 1;
      }
      expect(await exited).toMatchObject({ code: 0 });
      expect(parentInserted + (childInserted ?? Number.NaN)).toBe(1);
      expect(await counters.find({})).toEqual([{ id: expect.any(String), wallet: 'GSHARED', attempts: 2 * rounds }]);
    } finally {
      await store.close();
    }
  }, 180_000);
});
