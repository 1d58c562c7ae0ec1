#!/usr/bin/env node
// Runs a benchmark suite from its TypeScript sources:  node tools/bench/bin/bench.cjs sandbox  (npm run bench -- sandbox)
// Results go to stdout as a Markdown table and JSON; copy them into docs/benchmarks.md with the machine noted.
// A suite made of parts (notifications: deliveries, monitoring) runs each part in a process of its own, one after
// the other; a part also runs alone (`bench.cjs notifications-monitor`).
const { spawnSync } = require('node:child_process');
const { parseCli } = require('../../dev/bin/cli-args.cjs');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
const parts = { notifications: ['notifications-delivery', 'notifications-monitor'] };
const suites = [
  'sandbox',
  'gateway',
  'gateway-instructions',
  'rate-limit',
  'memory',
  'persistence',
  'payments',
  'txb',
  'agent',
  'signing-rule',
  'storm',
  'rescue',
  ...Object.keys(parts),
  ...parts.notifications,
];
const usage = `usage: bench.cjs [suite]   (default: sandbox)

Runs one benchmark suite and prints its results as a Markdown table and JSON (see docs/benchmarks.md).
Suites: ${suites.join(', ')}.

  -h, --help  this text
`;
const [suite = 'sandbox'] = parseCli(usage, {
  valid: ([name = 'sandbox', ...extra]) => suites.includes(name) && extra.length === 0,
}).positionals;
// A suite that measures one part of an app lives beside that part (its imports stay inside the app).
const beside = { 'rate-limit': path.join(root, 'apps', 'gateway', 'src', 'rate-limit', 'rate-limit.bench.ts') };
const source = (name) => beside[name] ?? path.join(root, 'tools', 'bench', 'src', `${name}.bench.ts`);
if (parts[suite]) {
  for (const part of parts[suite].filter((name) => fs.existsSync(source(name)))) {
    process.stdout.write(`\n## ${part}\n\n`);
    const run = spawnSync(process.execPath, [__filename, part], { stdio: 'inherit', env: process.env });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
} else {
  process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
  require('@swc-node/register');
  require(source(suite));
}
