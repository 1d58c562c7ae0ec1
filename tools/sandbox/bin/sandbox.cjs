#!/usr/bin/env node
// Runs the sandbox from its TypeScript sources (SWC, @rp/* aliases from tsconfig.base.json):
//   node tools/sandbox/bin/sandbox.cjs      (settings: see tools/sandbox/src/main.ts)
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
require('@swc-node/register');
require(path.join(root, 'tools', 'sandbox', 'src', 'main.ts'));
