#!/usr/bin/env node
// `npm start`: the whole system on embedded defaults. See tools/dev/src/main.ts. The sources are compiled once into
// dist/dev (what changed only); the launcher and every process it starts then run plain JavaScript.
require('../../node/require-node-24.cjs').requireNode24('npm start');
const { compiledPath, ensureCompiled } = require('../../compile/compile.cjs');

ensureCompiled();
process.setSourceMapsEnabled(true);
require(compiledPath('tools/dev/src/main.ts'));
