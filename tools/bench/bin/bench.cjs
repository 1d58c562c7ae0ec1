#!/usr/bin/env node
// Runs a benchmark suite from its TypeScript sources:  node tools/bench/bin/bench.cjs sandbox
// Results go to stdout as a Markdown table and JSON; copy them into docs/benchmarks.md with the machine noted.
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
const suites = ['sandbox', 'gateway', 'memory', 'persistence', 'payments', 'txb', 'agent'];
const suite = process.argv[2] ?? 'sandbox';
if (!suites.includes(suite)) {
  process.stderr.write(`usage: bench.cjs <${suites.join('|')}>\n`);
  process.exit(64);
}
process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
require('@swc-node/register');
require(path.join(root, 'tools', 'bench', 'src', `${suite}.bench.ts`));
