#!/usr/bin/env node
// Writes the merged OpenAPI document, docs/openapi.json, from the code (npx nx run gateway:openapi), or checks that
// the committed one is what the code gives (--check; exit 1 and a diff hint when not):
//   node tools/dev/bin/openapi.cjs [--check] [--file <path>] [--help]
// Each service's app is built in this process (never started: no port, no request; its database in memory) and
// describes itself as it does at GET /openapi.json; the gateway's own code merges the three documents.
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { compiledPath, ensureCompiled } = require('../../compile/compile.cjs');

const ROOT = path.resolve(__dirname, '../../..');
const SERVICES = [
  ['subscription', 'apps/subscription/src/subscription.app.ts', 'subscriptionApp'],
  ['txb', 'apps/txb/src/txb.app.ts', 'txbApp'],
  ['notifications', 'apps/notifications/src/notifications.app.ts', 'notificationsApp'],
];
const USAGE = `usage: node tools/dev/bin/openapi.cjs [--check] [--file <path>]

Builds the merged OpenAPI document from the services' code and writes docs/openapi.json.
  --check         write nothing; exit 1 if the file differs from what the code gives
  --file <path>   the document's file (default docs/openapi.json)
  --help          this text
`;

let values;
try {
  ({ values } = parseArgs({
    options: { check: { type: 'boolean' }, file: { type: 'string' }, help: { type: 'boolean' } },
  }));
} catch (error) {
  process.stderr.write(`openapi: ${error.message}\n\n${USAGE}`);
  process.exit(64);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

/** The settings an app is built with here: nothing of the machine's environment, no database file. */
const SETTINGS = {
  NODE_ENV: 'development',
  LOG_LEVEL: 'silent',
  DATABASE_URL: 'sqlite://memory',
  // Never used: the apps are not initialised, so nothing connects. A closed port all the same.
  REDIS_URL: 'redis://127.0.0.1:1',
};

async function serviceDocument(platform, [service, source, name]) {
  const definition = require(compiledPath(source))[name];
  if (!definition?.openApi) throw new Error(`${source} exports no ${name} with an openApi entry`);
  const app = await platform.createApp(definition, platform.loadConfig(definition.config, { ...SETTINGS }));
  try {
    return [
      service,
      platform.buildOpenApiDocument(app, { ...definition.openApi, version: platform.PUBLIC_API_VERSION }),
    ];
  } finally {
    await app.close();
  }
}

async function main() {
  ensureCompiled();
  process.setSourceMapsEnabled(true);
  const platform = require(compiledPath('libs/platform/src/index.ts'));
  const { COMMITTED_DOCUMENT_FILE, REGENERATE_DOCUMENT, committedDocument } = require(
    compiledPath('apps/gateway/src/docs/committed-document.ts'),
  );
  const documents = {};
  for (const service of SERVICES) {
    const [name, document] = await serviceDocument(platform, service);
    documents[name] = document;
  }
  const text = committedDocument(documents);
  const file = path.resolve(ROOT, values.file ?? COMMITTED_DOCUMENT_FILE);
  const shown = path.relative(ROOT, file);
  if (!values.check) {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${shown}\n`);
    return 0;
  }
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // missing: reported below like any other difference
  }
  if (committed === text) {
    process.stdout.write(`${shown} is what the code gives\n`);
    return 0;
  }
  process.stderr.write(
    `${shown} differs from what the code gives: run \`${REGENERATE_DOCUMENT}\` and commit\n` +
      `${firstDifference(committed, text)}\n`,
  );
  return 1;
}

/** Where two texts part: the line number and both lines. */
function firstDifference(committed, generated) {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = Math.max(
    0,
    a.findIndex((text, index) => text !== b[index]),
  );
  const shown = (text) => (text === undefined ? '<end of file>' : text.trim());
  return `  first at line ${line + 1}\n  committed: ${shown(a[line])}\n  code:      ${shown(b[line])}`;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`openapi: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
