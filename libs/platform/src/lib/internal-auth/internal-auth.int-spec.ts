import { gzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { INTERNAL_IDENTITY_HEADER, INTERNAL_TIMESTAMP_HEADER, encodeCallerIdentity } from './internal-signature';
import { IDENTITY, JSON_TYPE, TOKEN, refusals, outcome, signedHeaders, start } from './internal-auth.int-support';

/** Sends one call that must be refused 403 `INTERNAL_AUTH_REQUIRED`, and checks it was counted under `reason`. */
async function expectRefusedFor(
  app: NestFastifyApplication,
  reason: string,
  send: () => Promise<{ status: number; code?: unknown }>,
): Promise<void> {
  const before = await refusals(app, reason);
  const answer = await send();
  expect(answer).toEqual({ status: 403, code: 'INTERNAL_AUTH_REQUIRED' });
  expect(await refusals(app, reason)).toBe(before + 1);
}

describe('a service with INTERNAL_TOKEN set', () => {
  let app: NestFastifyApplication;
  const server = () => app.getHttpServer();

  beforeAll(async () => {
    ({ app } = await start({ INTERNAL_TOKEN: TOKEN }));
    await app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await app.close();
  });

  const postNote = (headers: Record<string, string>, body: string | Buffer, extra: Record<string, string> = {}) =>
    request(server())
      .post('/api/v1/accounts/notes')
      .set({ ...JSON_TYPE, ...extra, ...headers })
      .send(body);

  it('refuses an unsigned call with a 403 envelope', async () => {
    const response = await request(server()).get('/api/v1/accounts/me').set('x-request-id', 'direct-1');
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      success: false,
      status: 403,
      code: 'INTERNAL_AUTH_REQUIRED',
      error: 'This service answers only calls forwarded by the gateway',
      requestId: 'direct-1',
    });
  });

  it('refuses an identity header that is not signed, or signed with another token', async () => {
    const forged = await request(server())
      .get('/api/v1/accounts/me')
      .set(INTERNAL_IDENTITY_HEADER, encodeCallerIdentity(IDENTITY));
    expect(forged.status).toBe(403);
    const wrongToken = await request(server())
      .get('/api/v1/accounts/me')
      .set(signedHeaders('GET', '/api/v1/accounts/me', { identity: IDENTITY, token: 'some-other-token-0123456' }));
    expect(wrongToken.status).toBe(403);
  });

  it('passes a signed call and hands the signed identity to the handler', async () => {
    const response = await request(server())
      .get('/api/v1/accounts/me?view=full')
      .set(signedHeaders('GET', '/api/v1/accounts/me?view=full', { identity: IDENTITY }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ caller: IDENTITY });
  });

  it('passes a signed call with a body, and reads the body', async () => {
    const body = JSON.stringify({ text: 'hello' });
    const response = await postNote(
      signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body }),
      body,
    );
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ keyId: 'key-42', note: { text: 'hello' } });
  });

  it('refuses a replayed request: the same headers and the same body a second time', async () => {
    const body = JSON.stringify({ text: 'pay once' });
    const headers = signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body });
    expect((await postNote(headers, body)).status).toBe(201);
    await expectRefusedFor(app, 'replayed', async () => outcome(await postNote(headers, body)));
    // However many honest calls came between, and however late inside the window: still a replay.
    const others = Array.from({ length: 50 }, (_, i) => JSON.stringify({ text: `between ${i}` }));
    const between = await Promise.all(
      others.map((other) =>
        postNote(signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body: other }), other),
      ),
    );
    expect(between.map((response) => response.status)).toEqual(others.map(() => 201));
    await expectRefusedFor(app, 'replayed', async () => outcome(await postNote(headers, body)));
  });

  it('refuses the same headers with another body, whether or not the original came first', async () => {
    const body = JSON.stringify({ text: 'original' });
    const tampered = JSON.stringify({ text: 'tampered' });
    // Captured before the original arrived: the nonce is new, but the body is not the one that was signed.
    const first = signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body });
    const raced = await postNote(first, tampered);
    expect(raced.status).toBe(403);
    expect(raced.body.code).toBe('INTERNAL_AUTH_REQUIRED');
    // Captured after: the nonce is spent.
    const second = signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body });
    expect((await postNote(second, body)).status).toBe(201);
    expect((await postNote(second, tampered)).status).toBe(403);
  });

  it.each([
    ['key', { keyId: 'someone-else' }],
    ['account', { account: 'partner:someone-else' }],
  ])('refuses a tampered identity (another %s) as a bad signature', async (_part, change) => {
    const headers = signedHeaders('GET', '/api/v1/accounts/me', { identity: IDENTITY });
    await expectRefusedFor(app, 'bad-signature', async () =>
      outcome(
        await request(server())
          .get('/api/v1/accounts/me')
          .set({ ...headers, [INTERNAL_IDENTITY_HEADER]: encodeCallerIdentity({ ...IDENTITY, ...change }) }),
      ),
    );
  });

  it('refuses an expired timestamp, and a timestamp moved back into the window', async () => {
    const old = Date.now() - 61_000;
    const expired = signedHeaders('GET', '/api/v1/accounts/me', { identity: IDENTITY, now: old });
    expect((await request(server()).get('/api/v1/accounts/me').set(expired)).status).toBe(403);
    const moved = { ...expired, [INTERNAL_TIMESTAMP_HEADER]: String(Math.floor(Date.now() / 1000)) };
    expect((await request(server()).get('/api/v1/accounts/me').set(moved)).status).toBe(403);
  });

  it('hashes the bytes as they arrived: a gzip body signed over its compressed bytes passes', async () => {
    // fetch() sends the bytes as given (supertest would serialise a Buffer sent as JSON).
    const url = `${await app.getUrl()}/api/v1/accounts/notes`;
    const compressed = gzipSync(JSON.stringify({ text: 'squeezed' }));
    const send = (signedOver: string | Buffer) =>
      fetch(url, {
        method: 'POST',
        headers: {
          ...JSON_TYPE,
          'content-encoding': 'gzip',
          ...signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body: signedOver }),
        },
        body: compressed,
      });
    const ok = await send(compressed);
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { note: unknown }).note).toEqual({ text: 'squeezed' });
    // Signed over the decompressed text instead: not the bytes that travelled.
    await expectRefusedFor(app, 'body-mismatch', async () => {
      const refused = await send(JSON.stringify({ text: 'squeezed' }));
      return { status: refused.status, code: ((await refused.json()) as { code?: unknown }).code };
    });
  });

  it('refuses a call signed with a body when no body arrives', async () => {
    const headers = signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body: '{"text":"x"}' });
    await expectRefusedFor(app, 'body-mismatch', async () =>
      outcome(await request(server()).post('/api/v1/accounts/notes').set(headers)),
    );
  });

  it('refuses a signature made for another path', async () => {
    const response = await request(server())
      .get('/api/v1/accounts/me?view=other')
      .set(signedHeaders('GET', '/api/v1/accounts/me?view=full', { identity: IDENTITY }));
    expect(response.status).toBe(403);
  });

  it('answers 401 API_KEY_REQUIRED when a route needs a caller and the signed call has none', async () => {
    const viaParam = await request(server())
      .get('/api/v1/accounts/me')
      .set(signedHeaders('GET', '/api/v1/accounts/me', { requestId: 'anon-1' }));
    expect(viaParam.status).toBe(401);
    expect(viaParam.headers['www-authenticate']).toBe('Bearer');
    expect(viaParam.body).toMatchObject({ status: 401, code: 'API_KEY_REQUIRED', requestId: 'anon-1' });
    const viaGuard = await request(server())
      .get('/api/v1/accounts/guarded')
      .set(signedHeaders('GET', '/api/v1/accounts/guarded'));
    expect(viaGuard.status).toBe(401);
    expect(viaGuard.body.code).toBe('API_KEY_REQUIRED');
    const optional = await request(server())
      .get('/api/v1/accounts/maybe')
      .set(signedHeaders('GET', '/api/v1/accounts/maybe'));
    expect(optional.body).toEqual({ caller: null });
  });

  it('answers health probes and metrics unsigned, and counts refusals by reason', async () => {
    expect((await request(server()).get('/health/live')).status).toBe(200);
    expect((await request(server()).get('/health')).status).toBe(200);
    expect((await request(server()).get('/health/ready')).status).toBe(200);
    const metrics = await request(server()).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/internal_auth_refused_total\{reason="replayed",app="accounts"\} [1-9]/);
    expect(metrics.text).toMatch(/internal_auth_refused_total\{reason="body-mismatch",app="accounts"\} [1-9]/);
    expect(metrics.text).toMatch(/internal_auth_refused_total\{reason="unsigned",app="accounts"\} [1-9]/);
  });
});
