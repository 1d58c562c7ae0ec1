#!/usr/bin/env node
// The other process of sqlite-file.int-spec.ts. It opens the SQLite store on a file, the driver compiled on the
// fly by SWC as tools/dev/bin/run-app.cjs runs the apps, and writes to it:
//   node sqlite-file-writer.cjs insert <file>      inserts payments one after another until killed, printing each
//                                                  id on its own line once its insert has resolved
//   node sqlite-file-writer.cjs upsert <file> <n>  prints "ready", upserts one key n times, then prints
//                                                  "done <how many of its upserts inserted>"
const path = require('node:path');

const root = path.resolve(__dirname, '../../../../..');
process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
require('@swc-node/register');
const { SqliteDocumentStore } = require('./sqlite-document-store.ts');

const [mode, file, rounds] = process.argv.slice(2);

/** The payment the parent expects under each id. */
function payment(n) {
  return {
    id: `p${String(n).padStart(8, '0')}`,
    reference: `ref-${n}`,
    amount: '170141183460469231731687303715884105727',
    paidAt: new Date(Date.UTC(2026, 10, 22, 0, 0, 0, n)),
    memo: 'x'.repeat(256),
  };
}

async function insertUntilKilled(store) {
  const payments = await store.collection({
    name: 'payments',
    unique: [{ name: 'reference', fields: ['reference'] }],
  });
  for (let n = 0; ; n += 1) {
    const { id } = await payments.insert(payment(n));
    process.stdout.write(`${id}\n`);
    // Lets the event loop notice the parent's end of stdin closing.
    if (n % 64 === 0) await new Promise(setImmediate);
  }
}

async function upsertOneKey(store, times) {
  const counters = await store.collection({ name: 'counters', unique: [{ name: 'wallet', fields: ['wallet'] }] });
  process.stdout.write('ready\n');
  let inserted = 0;
  for (let n = 0; n < times; n += 1) {
    const result = await counters.updateOne({ wallet: 'GSHARED' }, { inc: { attempts: 1 } }, { upsert: true });
    if (result.upserted) inserted += 1;
  }
  process.stdout.write(`done ${inserted}\n`);
}

async function main() {
  // A parent that goes away closes our stdin: stop with it rather than write forever.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  const store = SqliteDocumentStore.open(file);
  if (mode === 'insert') await insertUntilKilled(store);
  else if (mode === 'upsert') await upsertOneKey(store, Number(rounds));
  else throw new Error(`unknown mode "${mode}"`);
  await store.close();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
