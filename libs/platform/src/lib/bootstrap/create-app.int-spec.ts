import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Body, Controller, DynamicModule, Get, Logger, Module, Post, Query } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsLedgerAccountAddress } from '@rp/contracts';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import Redis from 'ioredis';
import request from 'supertest';
import { ServiceConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { Secret } from '../config/setting-decorators';
import { HttpClient } from '../http/http-client';
import { RedisModule, RedisReadiness } from '../redis/redis.module';
import { AppDefinition } from './app-definition';
import { createApp, initApp } from './create-app';

class ExampleConfig extends ServiceConfig {
  @IsOptional()
  @IsString()
  @Secret()
  SMTP_PASSWORD?: string;
}

class SubscribeRequest {
  @IsLedgerAccountAddress()
  walletAddress!: string;

  @IsOptional()
  @IsString()
  @MaxLength(10)
  projectName?: string;
}

const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const SMTP_PASSWORD = 'smtp-password-never-logged';

@Controller('api/v1/things')
class ThingsController {
  private readonly logger = new Logger(ThingsController.name);

  constructor(
    private readonly http: HttpClient,
    private readonly config: ExampleConfig,
  ) {}

  @Post()
  create(@Body() body: SubscribeRequest) {
    return { walletAddress: body.walletAddress };
  }

  @Get('boom')
  boom(): never {
    throw new Error(`lost connection, password ${this.config.SMTP_PASSWORD} at db.internal:5432`);
  }

  @Post('log')
  log(@Body() body: Record<string, unknown>) {
    this.logger.log({ body }, 'received a payload');
    return { logged: true };
  }

  @Get('downstream')
  async downstream(@Query('url') url: string) {
    const response = await this.http.fetch(url);
    return { status: response.status };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

function definition(): AppDefinition<ExampleConfig> {
  return {
    name: 'example',
    config: ExampleConfig,
    modules: (config) => [RedisModule.forRoot(config.redis(), 'example'), { module: ThingsModule } as DynamicModule],
    readiness: () => [RedisReadiness],
  };
}

async function start(env: Record<string, string>) {
  const lines: string[] = [];
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const config = loadConfig(ExampleConfig, {
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    BODY_LIMIT: '2kb',
    SMTP_PASSWORD,
    ...env,
  });
  const app = await createApp(definition(), config, { logDestination: logs });
  await initApp(app);
  return { app, lines };
}

describe('an app built by createApp (real HTTP, real Redis)', () => {
  let app: NestFastifyApplication;
  let lines: string[];

  beforeAll(async () => {
    ({ app, lines } = await start({}));
  });

  afterAll(async () => {
    await app.close();
  });

  const server = () => app.getHttpServer();

  it('answers malformed JSON with a 400 envelope carrying the request id', async () => {
    const response = await request(server())
      .post('/api/v1/things')
      .set('content-type', 'application/json')
      .set('x-request-id', 'client-chosen-id-1')
      .send('{"walletAddress": ');
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toBe('client-chosen-id-1');
    expect(response.body).toEqual({
      success: false,
      status: 400,
      code: 'MALFORMED_JSON',
      error: 'Request body is not valid JSON',
      requestId: 'client-chosen-id-1',
    });
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const response = await request(server()).get('/api/v1/nowhere');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({
      success: false,
      status: 404,
      code: 'NOT_FOUND',
      error: 'No route for GET /api/v1/nowhere',
    });
    expect(response.body.requestId).toBe(response.headers['x-request-id']);
  });

  it('answers a body over the limit with a 413 envelope', async () => {
    const response = await request(server())
      .post('/api/v1/things')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ walletAddress: WALLET, padding: 'x'.repeat(4096) }));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a body that claims gzip but is not with a 400, not a 500', async () => {
    const response = await request(server())
      .post('/api/v1/things')
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .send('this is not gzip');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, status: 400, code: 'BAD_REQUEST' });
  });

  it('names each invalid or unexpected field in details', async () => {
    const response = await request(server())
      .post('/api/v1/things')
      .send({ walletAddress: 'GNOPE', projectName: 'far-too-long-name', admin: true });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.details).toEqual(
      expect.arrayContaining([
        { field: 'walletAddress', message: 'must be a valid ledger G-address' },
        { field: 'projectName', message: 'must be shorter than or equal to 10 characters' },
        { field: 'admin', message: 'is not an accepted field' },
      ]),
    );
    expect(response.body.error).toContain('walletAddress must be a valid ledger G-address');
  });

  it('refuses a JSON body that is not an object', async () => {
    const response = await request(server()).post('/api/v1/things').send([WALLET]);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('accepts a valid body', async () => {
    const response = await request(server()).post('/api/v1/things').send({ walletAddress: WALLET });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ walletAddress: WALLET });
  });

  it('answers an unexpected failure with a bare 500 and logs it with its stack, secrets scrubbed', async () => {
    const response = await request(server()).get('/api/v1/things/boom');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      success: false,
      status: 500,
      code: 'INTERNAL_ERROR',
      error: 'Internal server error',
      requestId: response.headers['x-request-id'],
    });
    const logged = lines.find((line) => line.includes('unexpected error'));
    expect(logged).toBeDefined();
    expect(logged).toContain('db.internal:5432');
    expect(logged).toContain('ThingsController.boom');
    expect(logged).not.toContain(SMTP_PASSWORD);
  });

  it('generates a request id when none is given and replaces one that is not a plain token', async () => {
    const generated = await request(server()).get('/health/live');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await request(server())
      .get('/health/live')
      .set('x-request-id', `a b ${'x'.repeat(300)}`);
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('passes the request id on outgoing HTTP calls', async () => {
    let seen: IncomingHttpHeaders | undefined;
    const downstream: Server = createServer((req, res) => {
      seen = req.headers;
      res.end('{}');
    });
    await new Promise<void>((resolve) => downstream.listen(0, '127.0.0.1', resolve));
    const { port } = downstream.address() as AddressInfo;
    try {
      const response = await request(server())
        .get('/api/v1/things/downstream')
        .query({ url: `http://127.0.0.1:${port}/` })
        .set('x-request-id', 'trace-me-42');
      expect(response.body).toEqual({ status: 200 });
      expect(seen?.['x-request-id']).toBe('trace-me-42');
    } finally {
      downstream.close();
    }
  });

  it('keeps secrets out of the log: headers, secret-named fields at any depth, configured secret values', async () => {
    const secrets = {
      bearer: 'rp_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      admin: 'admin-key-4f1c2d',
      webhookSecret: 'webhook-secret-9a8b7c',
      mnemonic: 'illness spike retreat truth genius clock brain pass fit cave bargain toe',
      botToken: '123456:AAE-bot-token-value',
      webhook: 'https://discord.com/api/webhooks/1/very-secret-path',
      apiKey: 'rp_live_nested_key_value_0123456789',
    };
    const response = await request(server())
      .post('/api/v1/things/log')
      .set('authorization', `Bearer ${secrets.bearer}`)
      .set('x-admin-key', secrets.admin)
      .set('x-webhook-secret', secrets.webhookSecret)
      .send({
        mnemonic: secrets.mnemonic,
        messengerBotToken: secrets.botToken,
        channelWebhook: secrets.webhook,
        nested: { deeper: { apiKey: secrets.apiKey } },
        note: `the configured ${SMTP_PASSWORD} appears in free text`,
      });
    expect(response.status).toBe(201);
    const output = lines.join('\n');
    expect(output).toContain('received a payload');
    expect(output).toContain('the configured [REDACTED] appears in free text');
    for (const secret of [...Object.values(secrets), SMTP_PASSWORD]) expect(output).not.toContain(secret);
  });

  it('logs JSON lines with the app name and the request id', async () => {
    await request(server()).get('/api/v1/nowhere').set('x-request-id', 'find-me-in-logs');
    const line = lines.map((l) => JSON.parse(l)).find((entry) => entry.req?.id === 'find-me-in-logs');
    expect(line).toMatchObject({ app: 'example', level: 'warn', res: { statusCode: 404 } });
  });

  it('exports request durations by route template and status, and process metrics', async () => {
    await request(server()).post('/api/v1/things').send({ walletAddress: WALLET });
    const response = await request(server()).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.text).toMatch(
      /http_request_duration_seconds_count\{app="example",method="POST",route="\/api\/v1\/things",status_code="201"\} [1-9]/,
    );
    expect(response.text).toMatch(
      /http_request_duration_seconds_count\{app="example",method="GET",route="unmatched",status_code="404"\}/,
    );
    expect(response.text).toContain('process_cpu_user_seconds_total');
  });

  it('is live and ready while Redis answers', async () => {
    expect((await request(server()).get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await request(server()).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { redis: { status: 'up' } } });
  });

  it('sets security headers', async () => {
    const response = await request(server()).get('/health/live');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});

describe('an app whose Redis does not answer', () => {
  it('is live but not ready, and says which dependency is missing', async () => {
    const { app } = await start({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      expect((await request(app.getHttpServer()).get('/health/live')).status).toBe(200);
      const ready = await request(app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({
        success: false,
        status: 503,
        code: 'NOT_READY',
        error: 'Not ready: redis',
        details: [{ field: 'redis' }],
      });
    } finally {
      await app.close();
    }
  });
});

describe('an app that is closed', () => {
  it('closes its Redis connection', async () => {
    const { app } = await start({});
    const redis = app.get(Redis);
    expect(await redis.ping()).toBe('PONG');
    await app.close();
    expect(redis.status).toBe('end');
  });
});
