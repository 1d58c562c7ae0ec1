import type { INestApplication, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { ApiQuery, DECORATORS } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';

interface RouteArgument {
  index: number;
  data?: unknown;
}

interface DeclaredParameter {
  name?: string;
  in?: string;
}

/**
 * `@Query() query: SomeQuery` binds the whole query string to a validated class. @nestjs/swagger reads only its own
 * `@ApiProperty` metadata there, which our DTOs do not carry, so it documents nothing. This declares one query
 * parameter per validated property (as `@ApiQuery` would), leaving names the route already declares alone; running
 * it again adds nothing.
 */
export function documentQueryObjects(app: INestApplication, schemas: Record<string, SchemaObject>): void {
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype;
      if (typeof controller === 'function') documentController(controller as Type, schemas);
    }
  }
}

function documentController(controller: Type, schemas: Record<string, SchemaObject>): void {
  const prototype = controller.prototype as object;
  for (const method of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, method);
    if (method === 'constructor' || typeof descriptor?.value !== 'function') continue;
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, RouteArgument>;
    const types = (Reflect.getMetadata('design:paramtypes', prototype, method) ?? []) as unknown[];
    for (const [key, argument] of Object.entries(args)) {
      if (key.split(':')[0] !== String(RouteParamtypes.QUERY) || argument.data !== undefined) continue;
      const queryClass = types[argument.index];
      const schema = typeof queryClass === 'function' ? schemas[queryClass.name] : undefined;
      if (schema?.properties) declareQueryParameters(prototype, method, descriptor, schema);
    }
  }
}

function declareQueryParameters(
  prototype: object,
  method: string,
  descriptor: PropertyDescriptor,
  schema: SchemaObject,
): void {
  const declared = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, descriptor.value) ?? []) as DeclaredParameter[];
  const names = new Set(declared.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name));
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (names.has(name)) continue;
    ApiQuery({ name, required: schema.required?.includes(name) ?? false, schema: property })(
      prototype,
      method,
      descriptor,
    );
  }
}
