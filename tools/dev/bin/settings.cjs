#!/usr/bin/env node
// Lists an app's settings with their defaults, and which are required or secret:
//   node tools/dev/bin/settings.cjs gateway [--json]      (npm run settings -- gateway [--json])
const path = require('node:path');
const { parseArgs } = require('node:util');

const apps = ['gateway', 'subscription', 'txb', 'notifications', 'agent'];
const usage = `usage: settings.cjs <${apps.join('|')}> [--json]

Lists the app's settings: name, default (or "required"), and whether it is a secret.

  --json      the same as JSON (name, default, required, secret, ...)
  -h, --help  this text
`;

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
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

process.env.SWC_NODE_PROJECT ??= path.resolve(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
const { describeSettings } = require('../src/settings-cli.ts');
const settings = describeSettings(app);
if (args.values.json) {
  process.stdout.write(`${JSON.stringify(settings, null, 2)}\n`);
} else {
  for (const setting of settings) {
    const value = setting.required ? 'required' : setting.default === undefined ? '-' : JSON.stringify(setting.default);
    process.stdout.write(`${setting.name.padEnd(36)} ${value}${setting.secret ? '  (secret)' : ''}\n`);
  }
}
