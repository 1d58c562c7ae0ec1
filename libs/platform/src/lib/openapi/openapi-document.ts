import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, PathItemObject, SchemaObject, TagObject } from '@nestjs/swagger';
import {
  ERROR_ENVELOPE_REF,
  ERROR_ENVELOPE_SCHEMA,
  ERROR_ENVELOPE_SCHEMA_NAME,
  SECURITY_SCHEMES,
} from './api-conventions';
import { documentQueryObjects } from './query-objects';
import { referencedSchemaNames, validationSchemas, withValidationSchemas } from './validation-schemas';

/** What an app says about its API document (`AppDefinition.openApi`). */
export interface OpenApiInfo {
  title: string;
  description?: string;
  /** What the tags of the app's controllers (`@ApiTags`) stand for; a tag no route uses stays out. */
  tags?: TagObject[];
}

export interface OpenApiDocumentInfo extends OpenApiInfo {
  version: string;
}

/** The public API: only routes under it are documented (health, metrics, internal routes are not). */
export const PUBLIC_API_PREFIX = '/api/v1';

/** Version of the public API contract that `/api/v1` stands for. */
export const PUBLIC_API_VERSION = '1.0.0';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The app's OpenAPI 3 document: operations from the @nestjs/swagger decorators on its controllers, schemas from
 * the class-validator decorators on its DTOs, the product's security schemes and the shared error envelope. Call it
 * once the app is created (its controllers are then known).
 */
export function buildOpenApiDocument(app: INestApplication, info: OpenApiDocumentInfo): OpenAPIObject {
  const validators = validationSchemas();
  documentQueryObjects(app, validators);
  const scanned = SwaggerModule.createDocument(
    app,
    { openapi: '3.0.3', info: { title: info.title, version: info.version } },
    { autoTagControllers: false },
  );

  const paths: Record<string, PathItemObject> = {};
  for (const [path, item] of Object.entries(scanned.paths)) {
    if (path === PUBLIC_API_PREFIX || path.startsWith(`${PUBLIC_API_PREFIX}/`)) paths[path] = withInputErrors(item);
  }

  const scannedSchemas = (scanned.components?.schemas ?? {}) as Record<string, SchemaObject>;
  // @nestjs/swagger registers a component per class it sees (properties empty without @ApiProperty); the
  // validators fill them. A query parameter may point at a nested class swagger never saw: add it too.
  const named: Record<string, SchemaObject> = { ...scannedSchemas };
  for (const name of referencedSchemaNames(paths)) {
    if (!(name in named) && name in validators) named[name] = validators[name];
  }
  const filled = withValidationSchemas(named, validators);
  filled[ERROR_ENVELOPE_SCHEMA_NAME] = ERROR_ENVELOPE_SCHEMA;
  const schemas = reachableSchemas(filled, [...referencedSchemaNames(paths), ERROR_ENVELOPE_SCHEMA_NAME]);

  return {
    openapi: '3.0.3',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description ? { description: info.description } : {}),
    },
    paths,
    components: {
      ...scanned.components,
      schemas,
      securitySchemes: { ...SECURITY_SCHEMES },
    },
    tags: usedTags([...(info.tags ?? []), ...(scanned.tags ?? [])], paths),
  };
}

/** Every route's input is validated: an operation that takes any documents the 400 it answers with. */
function withInputErrors(item: PathItemObject): PathItemObject {
  const copy: PathItemObject = { ...item };
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (!operation) continue;
    const takesInput = operation.requestBody !== undefined || (operation.parameters?.length ?? 0) > 0;
    copy[method] =
      takesInput && !operation.responses['400']
        ? withResponse(operation, '400', 'Invalid input (VALIDATION_FAILED, MALFORMED_JSON)')
        : operation;
  }
  return copy;
}

function withResponse(operation: OperationObject, status: string, description: string): OperationObject {
  return {
    ...operation,
    responses: {
      ...operation.responses,
      [status]: { description, content: { 'application/json': { schema: { $ref: ERROR_ENVELOPE_REF } } } },
    },
  };
}

/** The schemas reachable from `roots`; schemas only unlisted routes use stay out of the document. */
function reachableSchemas(schemas: Record<string, SchemaObject>, roots: string[]): Record<string, SchemaObject> {
  const reached = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (reached.has(name) || !(name in schemas)) continue;
    reached.add(name);
    pending.push(...referencedSchemaNames(schemas[name]));
  }
  return Object.fromEntries(
    Object.keys(schemas)
      .filter((name) => reached.has(name))
      .sort()
      .map((name) => [name, schemas[name]]),
  );
}

function usedTags(tags: TagObject[], paths: Record<string, PathItemObject>): TagObject[] {
  const used = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const method of HTTP_METHODS) for (const tag of item[method]?.tags ?? []) used.add(tag);
  }
  const declared = tags.filter((tag) => used.has(tag.name));
  const undeclared = [...used].filter((name) => !declared.some((tag) => tag.name === name)).sort();
  return [...declared, ...undeclared.map((name) => ({ name }))];
}
