import { PassThrough } from 'node:stream';
import { Controller, DynamicModule, Get, Module, UseGuards } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { CallerIdentity } from '@rp/contracts';
import request from 'supertest';
import { ServiceConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { AppDefinition } from '../bootstrap/app-definition';
import { createApp } from '../bootstrap/bootstrap';
import { Caller, CallerRequired } from './caller';
import { INTERNAL_IDENTITY_HEADER, encodeCallerIdentity, signInternalRequest } from './internal-signature';

const TOKEN = 'internal-token-for-tests-0123';
const IDENTITY: CallerIdentity = {
  keyId: 'key-42',
  tier: 'partner',
  rateLimit: 600,
  burst: 1000,
  expiresAt: '2030-01-01T00:00:00.000Z',
  email: null,
};

@Controller('api/v1/accounts')
class AccountsController {
  @Get('me')
  me(@Caller() caller: CallerIdentity) {
    return { caller };
  }

  @Get('maybe')
  maybe(@Caller({ optional: true }) caller: CallerIdentity | undefined) {
    return { caller: caller ?? null };
  }

  @Get('guarded')
  @UseGuards(CallerRequired)
  guarded() {
    return { guarded: true };
  }
}

@Module({ controllers: [AccountsController] })
class AccountsModule {}

function definition(internalAuth?: false): AppDefinition<ServiceConfig> {
  return {
    name: 'accounts',
    config: ServiceConfig,
    modules: () => [{ module: AccountsModule } as DynamicModule],
    readiness: () => [],
    internalAuth,
  };
}

async function start(env: Record<string, string>, internalAuth?: false) {
  const lines: string[] = [];
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const app = await createApp(definition(internalAuth), loadConfig(ServiceConfig, env), { logDestination: logs });
  await app.init();
  return { app, lines };
}

function signedHeaders(method: string, path: string, requestId: string, identity?: CallerIdentity, token = TOKEN) {
  return { ...signInternalRequest({ token, method, path, requestId, identity }), 'x-request-id': requestId };
}

describe('a service with INTERNAL_TOKEN set', () => {
  let app: NestExpressApplication;
  let lines: string[];
  const server = () => app.getHttpServer();

  beforeAll(async () => {
    ({ app, lines } = await start({ INTERNAL_TOKEN: TOKEN }));
  });

  afterAll(async () => {
    await app.close();
  });

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
      .set(signedHeaders('GET', '/api/v1/accounts/me', 'wrong-1', IDENTITY, 'some-other-token-0123456'));
    expect(wrongToken.status).toBe(403);
  });

  it('passes a signed call and hands the signed identity to the handler', async () => {
    const response = await request(server())
      .get('/api/v1/accounts/me?view=full')
      .set(signedHeaders('GET', '/api/v1/accounts/me?view=full', 'signed-1', IDENTITY));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ caller: IDENTITY });
  });

  it('refuses a signature made for another path', async () => {
    const response = await request(server())
      .get('/api/v1/accounts/me?view=other')
      .set(signedHeaders('GET', '/api/v1/accounts/me?view=full', 'signed-2', IDENTITY));
    expect(response.status).toBe(403);
  });

  it('answers 401 API_KEY_REQUIRED when a route needs a caller and the signed call has none', async () => {
    const viaParam = await request(server())
      .get('/api/v1/accounts/me')
      .set(signedHeaders('GET', '/api/v1/accounts/me', 'anon-1'));
    expect(viaParam.status).toBe(401);
    expect(viaParam.headers['www-authenticate']).toBe('Bearer');
    expect(viaParam.body).toMatchObject({ status: 401, code: 'API_KEY_REQUIRED', requestId: 'anon-1' });
    const viaGuard = await request(server())
      .get('/api/v1/accounts/guarded')
      .set(signedHeaders('GET', '/api/v1/accounts/guarded', 'anon-2'));
    expect(viaGuard.status).toBe(401);
    expect(viaGuard.body.code).toBe('API_KEY_REQUIRED');
    const optional = await request(server())
      .get('/api/v1/accounts/maybe')
      .set(signedHeaders('GET', '/api/v1/accounts/maybe', 'anon-3'));
    expect(optional.body).toEqual({ caller: null });
  });

  it('answers health probes and metrics unsigned', async () => {
    expect((await request(server()).get('/health/live')).status).toBe(200);
    expect((await request(server()).get('/health')).status).toBe(200);
    expect((await request(server()).get('/health/ready')).status).toBe(200);
    expect((await request(server()).get('/metrics')).status).toBe(200);
  });

  it('never logs the token', () => {
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});

describe('a service without INTERNAL_TOKEN (development)', () => {
  it('takes an unsigned identity header as it comes and warns at boot only in production', async () => {
    const { app, lines } = await start({ NODE_ENV: 'production' });
    try {
      const response = await request(app.getHttpServer())
        .get('/api/v1/accounts/me')
        .set(INTERNAL_IDENTITY_HEADER, encodeCallerIdentity(IDENTITY));
      expect(response.body).toEqual({ caller: IDENTITY });
      const missing = await request(app.getHttpServer()).get('/api/v1/accounts/me');
      expect(missing.status).toBe(401);
      expect(lines.filter((line) => line.includes('INTERNAL_TOKEN is not set'))).toHaveLength(1);
    } finally {
      await app.close();
    }
    const development = await start({});
    await development.app.close();
    expect(development.lines.some((line) => line.includes('INTERNAL_TOKEN is not set'))).toBe(false);
  });
});

describe('the signer (internalAuth: false)', () => {
  it('does not check signatures even with INTERNAL_TOKEN set, and trusts no identity header', async () => {
    const { app } = await start({ INTERNAL_TOKEN: TOKEN }, false);
    try {
      const response = await request(app.getHttpServer())
        .get('/api/v1/accounts/maybe')
        .set(INTERNAL_IDENTITY_HEADER, encodeCallerIdentity(IDENTITY));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ caller: null });
    } finally {
      await app.close();
    }
  });
});

describe('INTERNAL_TOKEN', () => {
  it('must be at least 16 characters when set', () => {
    expect(() => loadConfig(ServiceConfig, { INTERNAL_TOKEN: 'short' })).toThrow(
      'invalid configuration: INTERNAL_TOKEN must be at least 16 characters (value hidden)',
    );
    expect(loadConfig(ServiceConfig, {}).INTERNAL_TOKEN).toBeUndefined();
  });
});
