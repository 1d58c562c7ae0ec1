/**
 * A small service (one controller under `/api/v1/accounts`) started with the platform's bootstrap, and the signing
 * helpers, shared by the internal-auth integration tests.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Body, Controller, DynamicModule, Get, Module, Post, UseGuards } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CallerIdentity } from '@rp/contracts';
import { IsString } from 'class-validator';
import Redis from 'ioredis';
import request from 'supertest';
import { ServiceConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { AppDefinition } from '../bootstrap/app-definition';
import { createApp, initApp } from '../bootstrap/create-app';
import { RedisModule } from '../redis/redis.module';
import { Caller, CallerRequired } from './caller';
import { signInternalRequest } from './internal-signature';

export const TOKEN = 'internal-token-for-tests-0123';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const IDENTITY: CallerIdentity = {
  keyId: 'key-42',
  tier: 'partner',
  rateLimit: 600,
  burst: 1000,
  expiresAt: '2030-01-01T00:00:00.000Z',
  email: null,
  account: 'partner:acme',
};

class Note {
  @IsString()
  text!: string;
}

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

  @Post('notes')
  note(@Caller() caller: CallerIdentity, @Body() note: Note) {
    return { keyId: caller.keyId, note };
  }
}

@Module({ controllers: [AccountsController] })
class AccountsModule {}

/** Resolves once the app's shared Redis client is connected. */
export async function redisReady(app: NestFastifyApplication): Promise<void> {
  const redis = app.get(Redis);
  if (redis.status === 'ready') return;
  await new Promise((resolve) => redis.once('ready', resolve));
}

function definition(options: { internalAuth?: false; redis?: boolean } = {}): AppDefinition<ServiceConfig> {
  return {
    name: 'accounts',
    config: ServiceConfig,
    modules: (config) => [
      ...(options.redis ? [RedisModule.forRoot(config.redis(), 'accounts')] : []),
      { module: AccountsModule } as DynamicModule,
    ],
    readiness: () => [],
    internalAuth: options.internalAuth,
  };
}

export async function start(env: Record<string, string>, options: { internalAuth?: false; redis?: boolean } = {}) {
  const lines: string[] = [];
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const app = await createApp(definition(options), loadConfig(ServiceConfig, { REDIS_URL, ...env }), {
    logDestination: logs,
  });
  await initApp(app);
  return { app, lines };
}

interface Signing {
  identity?: CallerIdentity;
  body?: string | Buffer;
  token?: string;
  now?: number;
  requestId?: string;
}

export function signedHeaders(method: string, path: string, signing: Signing = {}) {
  const requestId = signing.requestId ?? randomUUID();
  const { identity, body, token = TOKEN, now } = signing;
  return { ...signInternalRequest({ token, method, path, requestId, identity, body, now }), 'x-request-id': requestId };
}

export const JSON_TYPE = { 'content-type': 'application/json' };

/** `internal_auth_refused_total{reason}` as the app's /metrics shows it. */
export async function refusals(app: NestFastifyApplication, reason: string): Promise<number> {
  const text = (await request(app.getHttpServer()).get('/metrics')).text;
  const line = new RegExp(`^internal_auth_refused_total\\{reason="${reason}",app="accounts"\\} (\\d+)$`, 'm').exec(
    text,
  );
  return line ? Number(line[1]) : 0;
}

export const outcome = (response: { status: number; body: { code?: unknown } }) => ({
  status: response.status,
  code: response.body.code,
});
