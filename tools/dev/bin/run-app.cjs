#!/usr/bin/env node
// Runs one app as plain JavaScript compiled from its TypeScript sources (tools/compile/compile.cjs: only what changed
// is compiled, SWC is loaded only then):  node tools/dev/bin/run-app.cjs gateway
const { parseCli } = require('./cli-args.cjs');

const apps = ['gateway', 'subscription', 'txb', 'notifications', 'agent'];
const usage = `usage: run-app.cjs <${apps.join('|')}>

Runs one app from its TypeScript sources (compiled on change); its settings come from the environment
(node tools/dev/bin/settings.cjs <app> lists them).

  -h, --help  this text
`;

const [app] = parseCli(usage, { valid: ([name, ...extra]) => apps.includes(name) && extra.length === 0 }).positionals;

const { compiledPath, ensureCompiled } = require('../../compile/compile.cjs');
ensureCompiled();
// Stack traces name the TypeScript file and line (of our code; node_modules keep their JavaScript lines).
require('../../compile/source-maps.cjs').enableOwnSourceMaps();
require(compiledPath(`apps/${app}/src/main.ts`));
