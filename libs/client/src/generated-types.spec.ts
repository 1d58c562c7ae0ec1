/**
 * The committed types are what openapi-typescript makes of the committed document (`docs/openapi.json`): a change
 * of the API changes the client in the same commit.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const GENERATED_TYPES = 'libs/client/src/generated/api.ts';
const REGENERATE = 'npx nx run client:generate';

describe('the generated API types', () => {
  it(`are what openapi-typescript makes of docs/openapi.json (else: run \`${REGENERATE}\` and commit)`, () => {
    const generated = execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), 'docs/openapi.json'],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    const committed = readFileSync(join(ROOT, GENERATED_TYPES), 'utf8');
    const same = committed === generated;
    expect({ same, hint: same ? '' : `${GENERATED_TYPES} is stale: run \`${REGENERATE}\` and commit` }).toEqual({
      same: true,
      hint: '',
    });
  }, 60_000);
});
