#!/usr/bin/env node
// Lists an app's settings with their defaults, and which are required or secret:
//   node tools/dev/bin/settings.cjs gateway [--json]
const path = require('node:path');

process.env.SWC_NODE_PROJECT ??= path.resolve(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
const { describeSettings } = require('../src/settings-cli.ts');
const [app, format] = process.argv.slice(2);
if (!app) {
  process.stderr.write('usage: settings.cjs <gateway|subscription|txb|notifications|agent> [--json]\n');
  process.exit(64);
}
const settings = describeSettings(app);
if (format === '--json') {
  process.stdout.write(`${JSON.stringify(settings, null, 2)}\n`);
} else {
  for (const setting of settings) {
    const value = setting.required ? 'required' : setting.default === undefined ? '-' : JSON.stringify(setting.default);
    process.stdout.write(`${setting.name.padEnd(36)} ${value}${setting.secret ? '  (secret)' : ''}\n`);
  }
}
