/** Internal auth as deployed: its logs, replicas sharing Redis, development without a token, the signer itself. */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { InternalAuthConfig, ServiceConfig } from '../config/app-config';
import { ConfigError, loadConfig } from '../config/load-config';
import { INTERNAL_IDENTITY_HEADER, encodeCallerIdentity } from './internal-signature';
import { IDENTITY, JSON_TYPE, TOKEN, redisReady, signedHeaders, start } from './internal-auth.int-support';

describe('the logs of a service with INTERNAL_TOKEN set', () => {
  it('never show the token, for accepted and refused calls alike, even at debug', async () => {
    const { app, lines } = await start({ INTERNAL_TOKEN: TOKEN, LOG_LEVEL: 'debug' });
    try {
      const body = JSON.stringify({ text: 'logged' });
      const headers = signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body, requestId: 'log-1' });
      const send = () =>
        request(app.getHttpServer())
          .post('/api/v1/accounts/notes')
          .set({ ...JSON_TYPE, ...headers })
          .send(body);
      expect((await send()).status).toBe(201);
      expect((await send()).status).toBe(403);
      const forged = signedHeaders('GET', '/api/v1/accounts/me', { token: TOKEN.split('').reverse().join('') });
      expect((await request(app.getHttpServer()).get('/api/v1/accounts/me').set(forged)).status).toBe(403);
      // The calls were logged (so absence below means something): the accepted one, its replay, the refusals.
      const logged = lines.join('\n');
      expect(lines.filter((line) => line.includes('log-1')).length).toBeGreaterThanOrEqual(2);
      expect(logged).toContain('nonce already used');
      expect(logged).toContain('bad signature');
      expect(logged).not.toContain(TOKEN);
    } finally {
      await app.close();
    }
  });
});

describe('two replicas of a service sharing Redis', () => {
  it('refuse at one replica a request the other already served', async () => {
    const a = await start({ INTERNAL_TOKEN: TOKEN }, { redis: true });
    const b = await start({ INTERNAL_TOKEN: TOKEN }, { redis: true });
    try {
      // Until its connection is up a replica checks nonces alone; the point here is the shared store.
      await Promise.all([a, b].map(({ app }) => redisReady(app)));
      const body = JSON.stringify({ text: 'once across replicas' });
      const headers = signedHeaders('POST', '/api/v1/accounts/notes', { identity: IDENTITY, body });
      const send = (app: NestFastifyApplication) =>
        request(app.getHttpServer())
          .post('/api/v1/accounts/notes')
          .set({ ...JSON_TYPE, ...headers })
          .send(body);
      expect((await send(a.app)).status).toBe(201);
      expect((await send(b.app)).status).toBe(403);
      expect((await send(a.app)).status).toBe(403);
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });
});

describe('a service without INTERNAL_TOKEN (development)', () => {
  it('takes an unsigned identity header as it comes', async () => {
    const { app } = await start({});
    try {
      const response = await request(app.getHttpServer())
        .get('/api/v1/accounts/me')
        .set(INTERNAL_IDENTITY_HEADER, encodeCallerIdentity(IDENTITY));
      expect(response.body).toEqual({ caller: IDENTITY });
      const missing = await request(app.getHttpServer()).get('/api/v1/accounts/me');
      expect(missing.status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('the signer (internalAuth: false)', () => {
  it('does not check signatures even with INTERNAL_TOKEN set, and trusts no identity header', async () => {
    const { app } = await start({ INTERNAL_TOKEN: TOKEN }, { internalAuth: false });
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

  it('is required with NODE_ENV=production, with one line naming it', () => {
    let error: unknown;
    try {
      loadConfig(InternalAuthConfig, { NODE_ENV: 'production' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'invalid configuration: INTERNAL_TOKEN is required when NODE_ENV is production',
    );
    expect(loadConfig(ServiceConfig, { NODE_ENV: 'production', INTERNAL_TOKEN: TOKEN }).INTERNAL_TOKEN).toBe(TOKEN);
  });
});
