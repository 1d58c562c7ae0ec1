#!/usr/bin/env node
// Lists an app's settings with their defaults, and which are required or secret:
//   node tools/dev/bin/settings.cjs gateway [--json]      (npm run settings -- gateway [--json])
const path = require('node:path');
const { parseCli } = require('./cli-args.cjs');

const apps = ['gateway', 'subscription', 'txb', 'notifications', 'agent'];
const usage = `usage: settings.cjs <${apps.join('|')}> [--json]

Lists the app's settings: name, default (or "required"), and whether it is a secret.

  --json      the same as JSON (name, default, required, secret, ...)
  -h, --help  this text
`;

const args = parseCli(usage, {
  options: { json: { type: 'boolean' } },
  valid: ([name, ...extra]) => apps.includes(name) && extra.length === 0,
});
const [app] = args.positionals;

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
