/**
 * `docs/openapi.json` is the API as the code describes it (clients are generated from it), every operation has a
 * name a client can call, and the document passes Redocly's recommended rules with warnings as errors (redocly.yaml).
 * Each check is also shown failing on a doctored copy.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { HTTP_METHODS } from '@rp/platform';
import { COMMITTED_DOCUMENT_FILE, REGENERATE_DOCUMENT } from './committed-document';

const ROOT = resolve(__dirname, '../../../..');
const GENERATOR = join(ROOT, 'tools/dev/bin/openapi.cjs');
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const TIMEOUT_MS = 120_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function withoutForceColor(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  delete rest['FORCE_COLOR'];
  return rest;
}

function run(args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: ROOT,
        timeout: TIMEOUT_MS,
        // Plain text: NO_COLOR, and no FORCE_COLOR beside it (Node 24 warns on stderr when both are set, as under CI).
        env: {
          ...withoutForceColor(process.env),
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
      },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const committedText = () => readFileSync(join(ROOT, COMMITTED_DOCUMENT_FILE), 'utf8');

function operationsOf(document: OpenAPIObject): { at: string; operationId: string | undefined }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ at: `${method.toUpperCase()} ${path}`, operationId: operation.operationId }] : [];
    }),
  );
}

describe('the committed OpenAPI document', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'rp-openapi-'));
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it(
    `is what the code gives (else: run \`${REGENERATE_DOCUMENT}\` and commit)`,
    async () => {
      const result = await run([GENERATOR, '--check']);
      // On a difference the generator's message says where and what to run; it is the failure shown here.
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
    TIMEOUT_MS,
  );

  it(
    'fails the check when the committed file differs from the code, naming the command to run',
    async () => {
      const doctored = join(scratch, 'openapi.json');
      writeFileSync(doctored, committedText().replace('"operationId": "getRisk"', '"operationId": "getRiskOld"'));
      const result = await run([GENERATOR, '--check', '--file', doctored]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('"operationId": "getRiskOld"');
      expect(result.stderr).toContain(`run \`${REGENERATE_DOCUMENT}\` and commit`);
    },
    TIMEOUT_MS,
  );

  it('names every operation with a unique lower camel case operationId', () => {
    const operations = operationsOf(JSON.parse(committedText()) as OpenAPIObject);
    expect(operations.length).toBeGreaterThan(20);
    const badlyNamed = operations.filter(({ operationId }) => !/^[a-z][A-Za-z0-9]+$/.test(operationId ?? ''));
    expect(badlyNamed).toEqual([]);
    const ids = operations.map(({ operationId }) => operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['buildTransaction', 'getRisk', 'subscribe', 'submitTransaction']));
  });

  it(
    "passes Redocly's lint (recommended-strict, redocly.yaml)",
    async () => {
      const result = await run([REDOCLY, 'lint', COMMITTED_DOCUMENT_FILE, '--format', 'stylish']);
      expect({ code: result.code, output: result.stdout + result.stderr }).toEqual({
        code: 0,
        output: expect.stringContaining('valid'),
      });
    },
    TIMEOUT_MS,
  );

  it(
    'the lint fails on a document with two operations of one operationId',
    async () => {
      const doctored = join(scratch, 'duplicate-ids.json');
      writeFileSync(doctored, committedText().replace('"operationId": "getRisk"', '"operationId": "buildTransaction"'));
      const result = await run([
        REDOCLY,
        'lint',
        doctored,
        '--config',
        join(ROOT, 'redocly.yaml'),
        '--format',
        'stylish',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).toContain('operation-operationId-unique');
    },
    TIMEOUT_MS,
  );
});
