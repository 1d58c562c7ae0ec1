import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, ParameterObject, SchemaObject } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsEmail, IsInt, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import request from 'supertest';
import { AppDefinition } from '../bootstrap/app-definition';
import { createApp, initApp } from '../bootstrap/create-app';
import { AppConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { ApiErrorResponse, ApiKeyAuth, ERROR_ENVELOPE_REF } from './api-conventions';
import { findDanglingRefs, resolveLocalRef } from './openapi-refs';

class ThingPart {
  @IsString()
  @MaxLength(20)
  label!: string;
}

class CreateThingRequest {
  @IsEmail()
  @MaxLength(100)
  email!: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => ThingPart)
  parts?: ThingPart[];
}

class ThingAnswer {
  @IsString()
  id!: string;
}

class ListThingsQuery {
  @IsEmail()
  owner!: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page?: number;
}

class InternalOnlyRequest {
  @IsString()
  secretPlan!: string;
}

@ApiTags('things')
@Controller('api/v1/things')
class ThingsController {
  @Post()
  @ApiOperation({ summary: 'Create a thing' })
  @ApiKeyAuth()
  @ApiOkResponse({ type: ThingAnswer })
  @ApiErrorResponse(409, 'The thing exists already')
  create(@Body() body: CreateThingRequest): ThingAnswer {
    return { id: body.email };
  }

  @Get()
  @ApiOperation({ summary: 'List things' })
  list(@Query() query: ListThingsQuery): ThingAnswer[] {
    return [{ id: query.owner }];
  }
}

@Controller('internal/things')
class InternalThingsController {
  @Post()
  plan(@Body() body: InternalOnlyRequest): { ok: boolean } {
    return { ok: body.secretPlan.length > 0 };
  }
}

@Module({ controllers: [ThingsController, InternalThingsController] })
class ThingsModule {}

function definition(openApi?: AppDefinition<AppConfig>['openApi']): AppDefinition<AppConfig> {
  return {
    name: 'things',
    config: AppConfig,
    modules: () => [{ module: ThingsModule }],
    readiness: () => [],
    openApi,
  };
}

async function start(openApi?: AppDefinition<AppConfig>['openApi']): Promise<NestFastifyApplication> {
  const app = await createApp(definition(openApi), loadConfig(AppConfig, { LOG_LEVEL: 'silent' }));
  await initApp(app);
  return app;
}

async function fetchDocument(app: NestFastifyApplication): Promise<OpenAPIObject> {
  const response = await request(app.getHttpServer()).get('/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toContain('application/json');
  return response.body as OpenAPIObject;
}

describe('an app that publishes its OpenAPI document', () => {
  let app: NestFastifyApplication;
  let document: OpenAPIObject;

  beforeAll(async () => {
    app = await start({ title: 'Things', description: 'Things, kept.' });
    document = await fetchDocument(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const schema = (name: string) => document.components?.schemas?.[name] as SchemaObject;
  const create = () => document.paths['/api/v1/things'].post as OperationObject;
  const list = () => document.paths['/api/v1/things'].get as OperationObject;

  it('is an OpenAPI 3 document with the title the app gave', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info).toEqual({ title: 'Things', description: 'Things, kept.', version: '1.0.0' });
  });

  it('lists the /api/v1 routes only: not health, metrics, internal routes or itself', () => {
    expect(Object.keys(document.paths)).toEqual(['/api/v1/things']);
    expect(JSON.stringify(document)).not.toContain('InternalOnlyRequest');
  });

  it('describes the request body with the constraints of its class-validator decorators', () => {
    expect(create().requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThingRequest' } } },
    });
    expect(schema('CreateThingRequest')).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', maxLength: 100 },
        parts: { type: 'array', items: { $ref: '#/components/schemas/ThingPart' } },
      },
      required: ['email'],
    });
    expect(schema('ThingPart').properties).toEqual({ label: { type: 'string', maxLength: 20 } });
  });

  it('turns a validated query class into query parameters', () => {
    const parameters = list().parameters as ParameterObject[];
    expect(parameters.map(({ name, in: where, required }) => ({ name, where, required }))).toEqual([
      { name: 'owner', where: 'query', required: true },
      { name: 'page', where: 'query', required: false },
    ]);
    expect(parameters[0].schema).toEqual({ type: 'string', format: 'email' });
  });

  it('keeps summaries, tags, security and responses from the swagger decorators', () => {
    expect(create()).toMatchObject({ summary: 'Create a thing', tags: ['things'] });
    expect(create().security).toEqual([{ apiKey: [] }, { apiKeyHeader: [] }]);
    expect(create().responses['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingAnswer' } } },
    });
    expect(create().responses['409']).toMatchObject({
      description: 'The thing exists already',
      content: { 'application/json': { schema: { $ref: ERROR_ENVELOPE_REF } } },
    });
    expect(create().responses['400']).toMatchObject({
      content: { 'application/json': { schema: { $ref: ERROR_ENVELOPE_REF } } },
    });
    expect(document.tags).toEqual([{ name: 'things' }]);
  });

  it('declares the security schemes of the product and the error envelope', () => {
    expect(document.components?.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      adminKey: { type: 'apiKey', in: 'header', name: 'x-admin-key' },
      payment: { type: 'apiKey', in: 'header', name: 'X-PAYMENT-SIGNATURE' },
      webhookSecret: { type: 'apiKey', in: 'header', name: 'X-Webhook-Secret' },
    });
    expect(resolveLocalRef(document, ERROR_ENVELOPE_REF)).toMatchObject({
      required: ['success', 'status', 'code', 'error'],
    });
  });

  it('has no reference that points at nothing', () => {
    expect(findDanglingRefs(document)).toEqual([]);
  });

  it('describes the same routes the same way in a second app of the same process', async () => {
    const second = await start({ title: 'Things again' });
    try {
      const again = await fetchDocument(second);
      expect(again.paths).toEqual(document.paths);
    } finally {
      await second.close();
    }
  });
});

describe('an app that does not opt in', () => {
  it('serves no document', async () => {
    const app = await start();
    try {
      expect((await request(app.getHttpServer()).get('/openapi.json')).status).toBe(404);
      expect((await request(app.getHttpServer()).get('/api/v1/things').query({ owner: 'a@b.co' })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
