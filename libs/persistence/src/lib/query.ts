import { randomUUID } from 'node:crypto';
import {
  CollectionDefinition,
  Comparable,
  Filter,
  FilterValue,
  RangeCondition,
  Sort,
  StoredDocument,
  Update,
  UpdateResult,
} from './collection';
import { InvalidQueryError } from './errors';

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names that would reach an object's prototype when assigned. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

function isFieldName(name: string): boolean {
  return FIELD.test(name) && !FORBIDDEN_NAMES.has(name);
}
const RANGE_OPERATORS = ['$gt', '$gte', '$lt', '$lte'] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];

export type Condition =
  | { kind: 'eq'; path: string[]; value: string | number | boolean | null | Date }
  | { kind: 'range'; path: string[]; bounds: [RangeOperator, Comparable][]; of: 'number' | 'date' };

/** Splits and checks a dotted field path (`alert.riskLevel` -> ['alert', 'riskLevel']). */
export function fieldPath(field: string): string[] {
  const path = field.split('.');
  if (path.length === 0 || path.length > 8 || !path.every(isFieldName)) {
    throw new InvalidQueryError(`invalid field path "${field}"`);
  }
  return path;
}

function isRange(value: FilterValue): value is RangeCondition {
  return typeof value === 'object' && value !== null && !(value instanceof Date);
}

/** Turns a filter into checked conditions. Anything outside the API (operators, arrays, objects) is refused. */
export function parseFilter(filter: Filter): Condition[] {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw new InvalidQueryError('a filter must be an object');
  }
  return Object.entries(filter).map(([field, value]): Condition => {
    const path = fieldPath(field);
    if (value === undefined) throw new InvalidQueryError(`filter on "${field}" is undefined`);
    if (!isRange(value)) {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new InvalidQueryError(`filter on "${field}" is not a finite number`);
      }
      if (!['string', 'number', 'boolean'].includes(typeof value) && value !== null && !(value instanceof Date)) {
        throw new InvalidQueryError(`filter on "${field}" must be a scalar, a date or a range`);
      }
      return { kind: 'eq', path, value };
    }
    const entries = Object.entries(value);
    if (entries.length === 0) throw new InvalidQueryError(`range on "${field}" has no bounds`);
    const bounds = entries.map(([operator, bound]): [RangeOperator, Comparable] => {
      if (!(RANGE_OPERATORS as readonly string[]).includes(operator)) {
        throw new InvalidQueryError(`unsupported operator "${operator}" on "${field}"`);
      }
      const ok =
        bound instanceof Date ? !Number.isNaN(bound.getTime()) : typeof bound === 'number' && Number.isFinite(bound);
      if (!ok) throw new InvalidQueryError(`bound ${operator} on "${field}" must be a finite number or a valid date`);
      return [operator as RangeOperator, bound as Comparable];
    });
    const kinds = new Set(bounds.map(([, bound]) => (bound instanceof Date ? 'date' : 'number')));
    if (kinds.size > 1) throw new InvalidQueryError(`range on "${field}" mixes numbers and dates`);
    return { kind: 'range', path, bounds, of: [...kinds][0] as 'number' | 'date' };
  });
}

export function checkSort(sort: Sort | undefined): { path: string[]; direction: 'asc' | 'desc' } | undefined {
  if (!sort) return undefined;
  if (sort.direction !== 'asc' && sort.direction !== 'desc') {
    throw new InvalidQueryError(`sort direction must be asc or desc`);
  }
  return { path: fieldPath(sort.field), direction: sort.direction };
}

export function checkLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidQueryError('limit must be a positive integer');
  return limit;
}

/**
 * A clean copy of a document: `bigint` becomes its decimal string, `undefined` fields are dropped, dates are
 * copied; names that no driver can store, non-finite numbers and other types are refused.
 */
export function cleanDocument(value: unknown, where = 'document'): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new InvalidQueryError(`${where} is not a finite number`);
    return value;
  }
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidQueryError(`${where} is an invalid date`);
    return new Date(value.getTime());
  }
  if (Array.isArray(value)) return value.map((item, i) => cleanDocument(item ?? null, `${where}[${i}]`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) !== null && !isPlainOrInstance(value)) {
    throw new InvalidQueryError(`${where} cannot be stored`);
  }
  if (typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (key.startsWith('$') || key.includes('.') || key === '' || FORBIDDEN_NAMES.has(key)) {
        throw new InvalidQueryError(`${where} has a field name that cannot be stored: "${key}"`);
      }
      copy[key] = cleanDocument(item, `${where}.${key}`);
    }
    return copy;
  }
  throw new InvalidQueryError(`${where} has a value of type ${typeof value} that cannot be stored`);
}

function isPlainOrInstance(value: object): boolean {
  return !(value instanceof Map || value instanceof Set || value instanceof RegExp || Buffer.isBuffer(value));
}

/** A new document split into its id (generated when not given) and its cleaned fields. */
export function splitNewDocument(document: object): { id: string; fields: Record<string, unknown> } {
  const { id = randomUUID(), ...fields } = cleanDocument(document) as Record<string, unknown> & { id?: unknown };
  if (typeof id !== 'string' || id === '') throw new InvalidQueryError('id must be a non-empty string');
  rejectReservedFields(fields);
  return { id, fields };
}

/** MongoDB keeps our `id` in `_id`; a field of that name would be ambiguous on every driver. */
export function rejectReservedFields(fields: Record<string, unknown>): void {
  if ('_id' in fields) throw new InvalidQueryError('"_id" is reserved; documents are identified by "id"');
}

/**
 * The id a condition on `id` asks for (`null`: nothing, every document has one), or `undefined` when the
 * condition is on another field. Ids are compared for equality only.
 */
export function idCondition(condition: Condition): { id: string | null } | undefined {
  if (condition.path[0] !== 'id') return undefined;
  if (condition.path.length > 1 || condition.kind !== 'eq') {
    throw new InvalidQueryError('id can only be compared for equality');
  }
  return { id: condition.value === null ? null : String(condition.value) };
}

/** What `updateOne` writes on a SQL driver, decided while it holds the write lock on the first match. */
export type UpdatePlan =
  | { write: 'none' }
  | { write: 'update' | 'insert'; id: string; document: Record<string, unknown> };

export function planUpdate<T extends StoredDocument>(
  match: { id: string; document: Record<string, unknown> } | undefined,
  conditions: Condition[],
  update: Update<T>,
  upsert: boolean,
): UpdatePlan {
  if (match) return { write: 'update', id: match.id, document: applyUpdate(match.document, update, false) };
  if (!upsert) return { write: 'none' };
  const { id = randomUUID(), ...seed } = seedFromFilter(conditions);
  const document = applyUpdate(seed, update, true);
  rejectReservedFields(document);
  return { write: 'insert', id: String(id), document };
}

export function updateResultOf<T extends StoredDocument>(plan: UpdatePlan): UpdateResult<T> {
  if (plan.write === 'none') return { matched: false, upserted: false, document: null };
  return {
    matched: plan.write === 'update',
    upserted: plan.write === 'insert',
    document: { id: plan.id, ...plan.document } as unknown as T,
  };
}

/** The document an upsert inserts: the filter's equalities (nested by path), then `setOnInsert`, `set`, `inc`. */
export function seedFromFilter(conditions: Condition[]): Record<string, unknown> {
  const seed: Record<string, unknown> = {};
  for (const condition of conditions) {
    if (condition.kind !== 'eq' || condition.value === null) continue;
    let node = seed;
    condition.path.slice(0, -1).forEach((part) => {
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    });
    node[condition.path[condition.path.length - 1]] = condition.value;
  }
  return seed;
}

/** Checks an update's field names and values; returns it cleaned. */
export function checkUpdate<T extends StoredDocument>(update: Update<T>): Update<T> {
  const fields = [
    ...Object.keys(update.set ?? {}),
    ...Object.keys(update.setOnInsert ?? {}),
    ...Object.keys(update.inc ?? {}),
    ...((update.unset ?? []) as string[]),
  ];
  for (const field of fields) {
    if (field === 'id') throw new InvalidQueryError('the id of a document cannot be updated');
    if (!isFieldName(field)) throw new InvalidQueryError(`updates name top-level fields only, not "${field}"`);
  }
  const changed = [
    ...Object.keys(update.set ?? {}),
    ...Object.keys(update.inc ?? {}),
    ...((update.unset ?? []) as string[]),
  ];
  const twice = changed.find((field, i) => changed.indexOf(field) !== i);
  if (twice) throw new InvalidQueryError(`"${twice}" is changed twice in one update`);
  for (const [field, amount] of Object.entries(update.inc ?? {})) {
    if (typeof amount !== 'number' || !Number.isFinite(amount)) {
      throw new InvalidQueryError(`inc of "${field}" must be a finite number`);
    }
  }
  return {
    set: update.set && (cleanDocument(update.set, 'set') as Update<T>['set']),
    setOnInsert: update.setOnInsert && (cleanDocument(update.setOnInsert, 'setOnInsert') as Update<T>['setOnInsert']),
    inc: update.inc,
    unset: update.unset,
  };
}

/** Applies an update to a document in memory (the SQL drivers hold the row lock while they do). */
export function applyUpdate<T extends StoredDocument>(
  document: Record<string, unknown>,
  update: Update<T>,
  inserting: boolean,
): Record<string, unknown> {
  const next = { ...document };
  if (inserting) Object.assign(next, update.setOnInsert);
  Object.assign(next, update.set);
  for (const [field, amount] of Object.entries(update.inc ?? {}) as [string, number][]) {
    const current = next[field] ?? 0;
    if (typeof current !== 'number') throw new InvalidQueryError(`cannot inc "${field}": it is not a number`);
    next[field] = current + amount;
  }
  for (const field of (update.unset ?? []) as string[]) delete next[field];
  return next;
}

/** When a document expires: the `Date` in its TTL field. Any other value, or none, never expires. */
export function expiryOf(document: Record<string, unknown>, ttl: CollectionDefinition['ttl'] | undefined): Date | null {
  if (!ttl) return null;
  const value = valueAt(document, ttl.field.split('.'));
  return value instanceof Date ? value : null;
}

/** The value at a path of a plain document, or `undefined`. */
export function valueAt(document: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = document;
  for (const part of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
