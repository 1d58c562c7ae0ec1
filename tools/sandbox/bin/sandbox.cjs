#!/usr/bin/env node
// Runs the sandbox as plain JavaScript compiled from its TypeScript sources (tools/compile/compile.cjs):
//   node tools/sandbox/bin/sandbox.cjs      (settings: see tools/sandbox/src/main.ts)
const { compiledPath, ensureCompiled } = require('../../compile/compile.cjs');

ensureCompiled();
process.setSourceMapsEnabled(true);
require(compiledPath('tools/sandbox/src/main.ts'));
