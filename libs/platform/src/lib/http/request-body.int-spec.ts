import { gzipSync } from 'node:zlib';
import { Body, Controller, DynamicModule, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsEmail } from 'class-validator';
import { AppConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { AppDefinition } from '../bootstrap/app-definition';
import { createApp, initApp } from '../bootstrap/create-app';

class Signup {
  @IsEmail()
  email!: string;
}

@Controller('signup')
class SignupController {
  @Post()
  signup(@Body() body: Signup) {
    return { email: body.email };
  }
}

@Module({ controllers: [SignupController] })
class SignupModule {}

const definition: AppDefinition<AppConfig> = {
  name: 'bodies',
  config: AppConfig,
  modules: () => [{ module: SignupModule } as DynamicModule],
  readiness: () => [],
};

/** What every app does with a request body before any route sees it, over real HTTP. */
describe('request bodies, as every app reads them', () => {
  let app: NestFastifyApplication;

  let url: string;

  beforeAll(async () => {
    app = await initApp(
      await createApp(definition, loadConfig(AppConfig, { LOG_LEVEL: 'silent', BODY_LIMIT: '16kb' })),
    );
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/signup`;
  });

  afterAll(async () => {
    await app.close();
  });

  /** POSTs the bytes as they are, with these headers; the answer's status, body and request id. */
  async function post(payload: string | Buffer, headers: Record<string, string>) {
    const response = await fetch(url, { method: 'POST', headers, body: payload });
    const body = (await response.json()) as Record<string, unknown>;
    return { status: response.status, body, requestId: response.headers.get('x-request-id') };
  }

  const json = { 'content-type': 'application/json' };
  const gzipped = { ...json, 'content-encoding': 'gzip' };

  it('reads a gzip-compressed JSON body', async () => {
    const response = await post(gzipSync(JSON.stringify({ email: 'a@b.co' })), gzipped);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ email: 'a@b.co' });
  });

  it('counts the limit on decompressed bytes: a small compressed body that inflates past it is a 413', async () => {
    const bomb = gzipSync(JSON.stringify({ email: 'a@b.co', padding: 'x'.repeat(1024 * 1024) }));
    expect(bomb.length).toBeLessThan(16 * 1024);
    const response = await post(bomb, gzipped);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: expect.stringContaining('16384 bytes') });
  });

  it('answers a Content-Encoding it cannot undo with 415', async () => {
    const response = await post('{"email":"a@b.co"}', { ...json, 'content-encoding': 'compress' });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers a body that is not JSON with 415 and the envelope', async () => {
    const response = await post('email=a@b.co', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ success: false, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(response.body.requestId).toBe(response.requestId);
  });

  it('refuses JSON nested deeper than 64 levels with a 400 before validation, even 5,000 deep', async () => {
    for (const depth of [65, 5000]) {
      const response = await post(`{"email":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`, json);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'BAD_REQUEST',
        error: 'Request body is nested deeper than 64 levels',
      });
    }
  });

  it('refuses a lone surrogate in a string with a 400 naming the field', async () => {
    const response = await post('{"email":"a\\ud800@b.co"}', json);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'email', message: 'must be well-formed Unicode text' }],
    });
  });

  it('refuses bytes that are not UTF-8 as malformed JSON', async () => {
    const response = await post(Buffer.from([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), json);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'MALFORMED_JSON', error: 'Request body is not valid UTF-8' });
  });

  it('reads an empty JSON body as {}: the route validates it and names the missing field', async () => {
    const response = await post('', json);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'email' }] });
  });
});
