/**
 * Every app, as a real process from source: the error envelope for malformed JSON, JSON nested too deep, lone
 * surrogates, unknown routes and oversized bodies; request ids; health and metrics; and no secret, configured or sent, anywhere in its log output.
 */
import { AppProcess } from '@rp/dev';
import { Keypair } from '@stellar/stellar-sdk';
import { ALL_APPS, AppName, DEMO_MNEMONIC, startApp } from './support/running-apps';

const SPONSOR_SECRET = Keypair.random().secret();
/** An RPC provider's credentials, in the userinfo and the query of the URL setting: the boot log masks both. */
const RPC_URL_SECRETS = ['rpc-pass-e2e-0123', 'rpc-query-key-e2e-4567'];
const RPC_URL = `https://rpc-user:${RPC_URL_SECRETS[0]}@rpc.example.com/soroban?apiKey=${RPC_URL_SECRETS[1]}`;
const SECRET_SETTINGS: Partial<Record<AppName, Record<string, string>>> = {
  subscription: { X402_FACILITATOR_LEDGER_SECRET_KEY: SPONSOR_SECRET },
  txb: { CONTRACT_RPC_URL: RPC_URL },
  notifications: {
    CONTRACT_RPC_URL: RPC_URL,
    RMS_ADMIN_API_KEY: 'admin-key-e2e-0123456789',
    RMS_WEBHOOK_SECRET: 'webhook-secret-e2e-012345',
    MESSENGER_BOT_TOKEN: '987654:bot-token-e2e-value',
    SMTP_PASSWORD: 'smtp-password-e2e-value',
  },
};
const SENT_SECRETS = {
  authorization: 'Bearer rp_test_e2eSecretKey0123456789abcdefgh',
  'x-api-key': 'rp_test_anotherE2eKey0123456789abcd',
  'x-admin-key': 'admin-header-e2e-secret-value',
  'x-webhook-secret': 'webhook-header-e2e-secret-value',
};

describe.each(ALL_APPS)('the %s app', (app) => {
  let process: AppProcess;

  beforeAll(async () => {
    process = await startApp(app, { BODY_LIMIT: '16kb', LOG_LEVEL: 'debug', ...SECRET_SETTINGS[app] });
  }, 90_000);

  afterAll(async () => {
    await process?.stop();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${process.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  /** The agent serves GET routes only (no Nest, ADR 013): whatever a POST carries, it is a 405 unread. */
  const refusedByTheAgent = async (response: Response, requestId?: string) => {
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({
      success: false,
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      ...(requestId && { requestId }),
    });
  };

  it('answers malformed JSON with a 400 envelope that carries the request id', async () => {
    const response = await post('/api/v1/anything', '{"walletAddress": ', { 'x-request-id': `malformed-${app}` });
    if (app === 'agent') return refusedByTheAgent(response, `malformed-${app}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toBe(`malformed-${app}`);
    expect(await response.json()).toEqual({
      success: false,
      status: 400,
      code: 'MALFORMED_JSON',
      error: 'Request body is not valid JSON',
      requestId: `malformed-${app}`,
    });
  });

  it('answers JSON nested 5,000 deep with a 400 before anything parses it, not a 500', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const response = await post('/api/v1/anything', deep, { 'x-request-id': `deep-${app}` });
    if (app === 'agent') return refusedByTheAgent(response, `deep-${app}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      status: 400,
      code: 'BAD_REQUEST',
      error: 'Request body is nested deeper than 64 levels',
      requestId: `deep-${app}`,
    });
  });

  it('answers a string holding a lone surrogate with a 400 naming the field, not a 500', async () => {
    // JSON text may escape a lone surrogate (\ud800); it is no Unicode text, and no database would store it.
    const response = await post('/api/v1/anything', '{"email":"a\\ud800@example.com"}');
    if (app === 'agent') return refusedByTheAgent(response);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'email', message: 'must be well-formed Unicode text' }],
    });
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const response = await fetch(`${process.url}/no/such/route`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      success: false,
      status: 404,
      code: 'NOT_FOUND',
      error: 'No route for GET /no/such/route',
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('answers a body over its limit with a 413 envelope', async () => {
    const response = await post('/api/v1/anything', JSON.stringify({ padding: 'x'.repeat(32 * 1024) }));
    if (app === 'agent') return refusedByTheAgent(response);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('is live and ready, and exports metrics', async () => {
    expect((await fetch(`${process.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${process.url}/health`)).status).toBe(200);
    const ready = await fetch(`${process.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('ok');
    const metrics = await (await fetch(`${process.url}/metrics`)).text();
    expect(metrics).toContain(`http_request_duration_seconds_count{app="${app}"`);
    expect(metrics).toContain('process_resident_memory_bytes');
  });

  it('keeps every secret, configured or sent in headers or a body, out of its log output', async () => {
    const ids = [`secrets-get-${app}`, `secrets-post-${app}`];
    await fetch(`${process.url}/api/v1/anything`, { headers: { ...SENT_SECRETS, 'x-request-id': ids[0] } });
    await post('/api/v1/anything', JSON.stringify({ mnemonic: DEMO_MNEMONIC }), {
      ...SENT_SECRETS,
      'x-request-id': ids[1],
    });
    if (app === 'agent') {
      // The agent writes no line per request (ADR 013): its whole output is read once it has stopped, so nothing it
      // logged about these requests (or anything else) can still be on its way.
      expect(await process.stop()).toBe(0);
      await process.whenOutputEnded();
      expect(process.lines.join('\n')).toContain('stopping (SIGTERM)');
    } else {
      // Each request's own access-log line, with its id: what the app wrote about the secrets is in by then.
      await until(() => ids.every((id) => process.lines.some((line) => line.includes(`"${id}"`))), 'both request lines');
    }
    const output = process.lines.join('\n');
    expect(output).toContain('listening on');
    const secrets = [
      ...Object.values(SENT_SECRETS).map((value) => value.replace('Bearer ', '')),
      ...Object.values(SECRET_SETTINGS[app] ?? {}),
      ...(SECRET_SETTINGS[app]?.CONTRACT_RPC_URL ? RPC_URL_SECRETS : []),
      // Configured in the agent, sent in a body to every app: not the phrase, not any three words of it in a row.
      ...threeWordRuns(DEMO_MNEMONIC),
    ];
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});

/** Every run of three consecutive words of a phrase. */
function threeWordRuns(phrase: string): string[] {
  const words = phrase.split(' ');
  return words.slice(0, -2).map((_, i) => words.slice(i, i + 3).join(' '));
}

/** Resolves once `condition` holds; the deadline only bounds a failure (a busy machine gets 30 s). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not logged within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
