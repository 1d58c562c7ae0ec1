import type { SchemaObject } from '@nestjs/swagger';
import { COOLDOWN_LEVELS, I128_MAX, MAX_LEVEL_BOUND, RISK_LEVELS } from '@rp/contracts';
import type { MetadataStorage as ClassTransformerStorage } from 'class-transformer/types/MetadataStorage';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters';
import { collectRefs, componentOfRef } from './openapi-refs';

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

// class-transformer keeps its `@Type()` metadata in a module-level store it does not export from its entry point;
// without it, the element type of a nested array is unknown.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: ClassTransformerStorage;
};

const STRKEY_BODY = '[A-Z2-7]{55}';

/** Schemas for the validators of `@rp/contracts`, keyed by the name each registers with class-validator. */
const LEDGER_CONVERTERS: ISchemaConverters = {
  isLedgerAccountAddress: {
    type: 'string',
    pattern: `^G${STRKEY_BODY}$`,
    description: 'Ledger account address (G..., checksum verified).',
  },
  isContractAddress: {
    type: 'string',
    pattern: `^C${STRKEY_BODY}$`,
    description: 'Contract address (C..., checksum verified).',
  },
  isBaseUnitAmount: {
    type: 'string',
    pattern: '^(0|[1-9][0-9]{0,38})$',
    description: `Integer amount in the asset's base units, as a string (at most ${I128_MAX}).`,
  },
  isRiskLevel: { type: 'string', enum: [...RISK_LEVELS, ...COOLDOWN_LEVELS] },
  // A risk configuration's fields (their order rules are in the route's description).
  isLevelBound: {
    type: 'number',
    minimum: 1,
    exclusiveMinimum: true,
    maximum: MAX_LEVEL_BOUND,
    description: 'A health factor; medium > high > critical > 1.0.',
  },
  isMaxAge: { type: 'integer', minimum: 1, maximum: 86_400 },
  isWarnBps: { type: 'integer', minimum: 1, maximum: 10_000, description: 'Below utilizationAlertBps.' },
  isAlertBps: { type: 'integer', minimum: 1, maximum: 10_000, description: 'Above utilizationWarnBps.' },
  isDepegBps: { type: 'integer', minimum: 1, maximum: 10_000 },
  // The library's own is `oneOf` date / date-time, two string schemas a linter cannot tell apart (and a client
  // generator reads as one string): one string schema says the same.
  isIso8601: { type: 'string', description: 'An ISO 8601 date-time (2026-05-01T12:00:00Z) or date (2026-05-01).' },
};

/**
 * JSON schemas of every class that carries class-validator decorators, keyed by class name, references written as
 * `#/components/schemas/<Name>`. Nested DTOs (`@ValidateNested()` + `@Type(() => Child)`) become references.
 */
export function validationSchemas(): Record<string, SchemaObject> {
  const schemas = validationMetadatasToSchemas({
    refPointerPrefix: SCHEMA_REF_PREFIX,
    classTransformerMetadataStorage: defaultMetadataStorage,
    additionalConverters: LEDGER_CONVERTERS,
  });
  // openapi3-ts (used by class-validator-jsonschema) and @nestjs/swagger type the same JSON differently.
  return withoutRefSiblings(schemas) as Record<string, SchemaObject>;
}

/**
 * Replaces the schema of every component named after a validated class with the one its decorators describe, then
 * adds the validated classes those schemas refer to (and theirs), so that every reference resolves.
 */
export function withValidationSchemas(
  components: Record<string, SchemaObject>,
  fromValidators: Record<string, SchemaObject> = validationSchemas(),
): Record<string, SchemaObject> {
  const result: Record<string, SchemaObject> = { ...components };
  const pending = Object.keys(components).filter((name) => name in fromValidators);
  const seen = new Set(pending);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    result[name] = fromValidators[name];
    for (const ref of referencedSchemaNames(fromValidators[name])) {
      if (!seen.has(ref) && ref in fromValidators) {
        seen.add(ref);
        pending.push(ref);
      }
    }
  }
  return result;
}

/** Names of the schemas `node` refers to. */
export function referencedSchemaNames(node: unknown): string[] {
  return collectRefs(node)
    .map(({ ref }) => componentOfRef(ref))
    .filter((component) => component?.kind === 'schemas')
    .map((component) => (component as { name: string }).name);
}

/**
 * `@IsObject()` beside `@ValidateNested()` gives `{ $ref, type: 'object' }`; OpenAPI 3.0 ignores whatever sits
 * beside a `$ref`, so the reference alone says the same without the linter's warning.
 */
function withoutRefSiblings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRefSiblings);
  if (typeof node !== 'object' || node === null) return node;
  const { $ref } = node as { $ref?: unknown };
  if (typeof $ref === 'string') return { $ref };
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withoutRefSiblings(value)]));
}
