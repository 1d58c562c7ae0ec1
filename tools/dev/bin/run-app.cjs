#!/usr/bin/env node
// Runs one app as plain JavaScript compiled from its TypeScript sources (tools/compile/compile.cjs: only what changed
// is compiled, SWC is loaded only then):  node tools/dev/bin/run-app.cjs gateway
const { compiledPath, ensureCompiled } = require('../../compile/compile.cjs');

const apps = ['gateway', 'subscription', 'txb', 'notifications', 'agent'];
const app = process.argv[2];
if (!apps.includes(app)) {
  process.stderr.write(`usage: run-app.cjs <${apps.join('|')}>\n`);
  process.exit(64);
}
ensureCompiled();
// Stack traces name the TypeScript file and line.
process.setSourceMapsEnabled(true);
require(compiledPath(`apps/${app}/src/main.ts`));
