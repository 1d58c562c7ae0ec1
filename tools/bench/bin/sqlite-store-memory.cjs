#!/usr/bin/env node
// Child of the persistence bench: the resident memory of a plain node process (no TypeScript compiler loaded, as
// in production) holding only the SQLite store, compiled to JavaScript by the bench into <compiled dir>.
//   node sqlite-store-memory.cjs <compiled dir> <file> <documents>
// Prints one JSON line: RSS in bytes once the modules are loaded, once the store is open, once it holds
// <documents> payments (after 1,000 indexed reads), and after reading them all back at once.
const path = require('node:path');

const [compiled, file, documents] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const rss = { loaded: 0 };
const { SqliteDocumentStore } = require(
  path.join(compiled, 'libs/persistence/src/lib/sqlite/sqlite-document-store.js'),
);
const { payment } = require(path.join(compiled, 'tools/bench/src/payment.js'));

async function main() {
  rss.loaded = process.memoryUsage().rss;
  const store = SqliteDocumentStore.open(file);
  const payments = await store.collection({ name: 'payments', unique: [{ name: 'tx_hash', fields: ['txHash'] }] });
  rss.opened = process.memoryUsage().rss;
  for (let n = 0; n < documents; n += 1) await payments.insert(payment(n));
  for (let n = 0; n < 1000; n += 1) await payments.findOne({ txHash: payment(n * 7).txHash });
  rss.filled = process.memoryUsage().rss;
  rss.documents = (await payments.find({})).length;
  rss.afterReadingAll = process.memoryUsage().rss;
  await store.close();
  process.stdout.write(`${JSON.stringify(rss)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
