#!/usr/bin/env node
// Runs one app as plain JavaScript compiled from its TypeScript sources (tools/compile/compile.cjs: only what changed
// is compiled, SWC is loaded only then):  node tools/dev/bin/run-app.cjs gateway
const { parseArgs } = require('node:util');

const apps = ['gateway', 'subscription', 'txb', 'notifications', 'agent'];
const usage = `usage: run-app.cjs <${apps.join('|')}>

Runs one app from its TypeScript sources (compiled on change); its settings come from the environment
(node tools/dev/bin/settings.cjs <app> lists them).

  -h, --help  this text
`;

let args;
try {
  args = parseArgs({ allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
} catch (error) {
  process.stderr.write(`${error.message}\n\n${usage}`);
  process.exit(64);
}
if (args.values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const [app, ...extra] = args.positionals;
if (!apps.includes(app) || extra.length > 0) {
  process.stderr.write(usage);
  process.exit(64);
}

const { compiledPath, ensureCompiled } = require('../../compile/compile.cjs');
ensureCompiled();
// Stack traces name the TypeScript file and line (of our code; node_modules keep their JavaScript lines).
require('../../compile/source-maps.cjs').enableOwnSourceMaps();
require(compiledPath(`apps/${app}/src/main.ts`));
