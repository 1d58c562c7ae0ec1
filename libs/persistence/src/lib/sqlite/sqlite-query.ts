import { LookupIndex } from '../collection';
import { DATE_MEMBER } from '../document-json';
import { InvalidQueryError } from '../errors';
import { Condition, RangeOperator, idCondition } from '../query';
import { SqliteValue } from './sqlite-connection';

const OPERATOR: Record<RangeOperator, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER_TYPES = `('integer', 'real')`;

/** Anonymous `?` parameters: values are added in the order their placeholders appear in the statement. */
export class SqliteParams {
  readonly values: SqliteValue[] = [];

  add(value: SqliteValue): string {
    this.values.push(value);
    return '?';
  }
}

/**
 * A JSON path as a SQL string literal (`'$.risk.level'`). Paths are written into the statement, not bound, so that
 * a filter's expression is the very text of a unique index's expression and SQLite can use the index. `fieldPath`
 * has already limited each segment to letters, digits and `_`; this checks again because it builds SQL.
 */
function jsonPath(path: string[], member?: string): string {
  if (!path.every((segment) => SEGMENT.test(segment))) {
    throw new InvalidQueryError(`invalid field path "${path.join('.')}"`);
  }
  return `'$.${path.join('.')}${member ? `."${member}"` : ''}'`;
}

/** The SQL value at a path: text, integer, real, 1/0 for booleans, JSON text for objects, NULL for null or missing. */
function valueAt(path: string[]): string {
  return `json_extract(doc, ${jsonPath(path)})`;
}

/** The JSON type at a path: 'null', 'true', 'false', 'integer', 'real', 'text', 'array', 'object'; NULL if missing. */
function typeAt(path: string[]): string {
  return `json_type(doc, ${jsonPath(path)})`;
}

/** The ISO text of a date stored at a path (`{"$date": iso}`); NULL for anything that is not one of our dates. */
function dateAt(path: string[]): string {
  return `json_extract(doc, ${jsonPath(path, DATE_MEMBER)})`;
}

/**
 * The columns of a unique index on `fields`: each field's value and its JSON type, so that `true` and `1`, which
 * SQLite's JSON functions both read as 1, stay distinct keys. A missing or null field gives a NULL value, and rows
 * with a NULL in a unique index never conflict.
 */
export function uniqueIndexColumns(fields: string[]): string {
  return fields
    .map((field) => field.split('.'))
    .map((path) => `${valueAt(path)}, ${typeAt(path)}`)
    .join(', ');
}

/** The columns of a lookup index: each equality field's value and JSON type, then the date field's ISO text. */
export function lookupIndexColumns(index: LookupIndex): string {
  const dates = index.dateRange ? [dateAt(index.dateRange.split('.'))] : [];
  return [...(index.fields.length > 0 ? [uniqueIndexColumns(index.fields)] : []), ...dates].join(', ');
}

/** One condition, exact about types: a string never equals a number, `true` never equals 1. */
export function conditionSql(condition: Condition, params: SqliteParams): string {
  const onId = idCondition(condition);
  if (onId) return onId.id === null ? 'FALSE' : `id = ${params.add(onId.id)}`;
  const { path } = condition;
  if (condition.kind === 'range') {
    const bounds = condition.bounds.map(([operator, bound]) =>
      bound instanceof Date
        ? `${dateAt(path)} ${OPERATOR[operator]} ${params.add(bound.toISOString())}`
        : `${valueAt(path)} ${OPERATOR[operator]} ${params.add(bound)}`,
    );
    // Dates are compared as ISO text in SQLite's binary collation, that is by code point, as on the other drivers.
    if (condition.of === 'date') return `(${bounds.join(' AND ')})`;
    return `(${typeAt(path)} IN ${NUMBER_TYPES} AND ${bounds.join(' AND ')})`;
  }
  const { value } = condition;
  if (value === null) return `${valueAt(path)} IS NULL`;
  if (value instanceof Date) return `${dateAt(path)} = ${params.add(value.toISOString())}`;
  if (typeof value === 'boolean') return `${typeAt(path)} = '${value ? 'true' : 'false'}'`;
  if (typeof value === 'number') {
    return `(${valueAt(path)} = ${params.add(value)} AND ${typeAt(path)} IN ${NUMBER_TYPES})`;
  }
  // Objects and arrays read as their JSON text: the type check keeps a string from matching one.
  return `(${valueAt(path)} = ${params.add(value)} AND ${typeAt(path)} = 'text')`;
}

/**
 * As on PostgreSQL: missing (and null) values first when ascending, then numbers by value, strings and dates by
 * code point (SQLite's binary collation on UTF-8); ties by id.
 */
export function orderSql(sort: { path: string[]; direction: 'asc' | 'desc' } | undefined): string {
  if (!sort) return 'ORDER BY id ASC';
  if (sort.path[0] === 'id') return `ORDER BY id ${sort.direction.toUpperCase()}`;
  const direction = sort.direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
  const type = typeAt(sort.path);
  const value = valueAt(sort.path);
  const asNumber = `CASE WHEN ${type} IN ${NUMBER_TYPES} THEN ${value} END`;
  const asText =
    `CASE ${type} WHEN 'text' THEN ${value} WHEN 'object' THEN COALESCE(${dateAt(sort.path)}, ${value}) ` +
    `WHEN 'array' THEN ${value} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END`;
  return `ORDER BY ${asNumber} ${direction}, ${asText} ${direction}, id ASC`;
}
