#!/usr/bin/env node
// `npm start`: the whole system on embedded defaults. See tools/dev/src/main.ts.
const path = require('node:path');

process.env.SWC_NODE_PROJECT ??= path.resolve(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
require('../src/main.ts');
