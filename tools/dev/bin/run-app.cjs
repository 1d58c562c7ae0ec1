#!/usr/bin/env node
// Runs one app from its TypeScript sources, compiled on the fly by SWC (decorator metadata on, @rp/* aliases
// resolved from tsconfig.base.json):  node tools/dev/bin/run-app.cjs gateway
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
const apps = ['gateway', 'subscription', 'txb', 'notifications', 'agent'];
const app = process.argv[2];
if (!apps.includes(app)) {
  process.stderr.write(`usage: run-app.cjs <${apps.join('|')}>\n`);
  process.exit(64);
}
process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
require('@swc-node/register');
require(path.join(root, 'apps', app, 'src', 'main.ts'));
