import { LookupIndex } from '../collection';
import { DATE_MEMBER, toJson } from '../document-json';
import { InvalidQueryError } from '../errors';
import { Condition, RangeOperator, fieldPath, idCondition } from '../query';

const OPERATOR: Record<RangeOperator, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };
const SEGMENT = /^[A-Za-z_$][A-Za-z0-9_]*$/;

/** Numbered parameters for one statement. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A JSON path as a `text[]` literal (`'{risk,level}'`). Paths are written into the statement, not bound, so that
 * a filter's expression is the very text of an index's expression and PostgreSQL can use the index. `fieldPath`
 * has already limited each segment to letters, digits and `_`; this checks again because it builds SQL.
 */
function pathLiteral(path: string[]): string {
  if (!path.every((segment) => SEGMENT.test(segment))) {
    throw new InvalidQueryError(`invalid field path "${path.join('.')}"`);
  }
  return `'{${path.join(',')}}'`;
}

/** The JSON value at a path (`jsonb`, SQL NULL when missing). */
const valueAt = (path: string[]): string => `(doc #> ${pathLiteral(path)})`;

/** The text at a path (`doc #>> '{path}'`): what unique indexes are built on. */
const textAt = (path: string[]): string => `(doc #>> ${pathLiteral(path)})`;

/** The ISO text of a date stored at a path (`{"$date": iso}`), compared by code point. */
const dateAt = (path: string[]): string => `(doc #>> ${pathLiteral([...path, DATE_MEMBER])}) COLLATE "C"`;

/** The columns of a unique index: each field's text (so "1" and 1 are one key on PostgreSQL, as they always were). */
export function uniqueIndexColumns(fields: readonly string[]): string {
  return fields.map((field) => textAt(fieldPath(field))).join(', ');
}

/** The columns of a lookup index: each equality field's JSON value, then the date field's ISO text. */
export function lookupIndexColumns(index: LookupIndex): string {
  return [
    ...index.fields.map((field) => valueAt(fieldPath(field))),
    ...(index.dateRange ? [dateAt(fieldPath(index.dateRange))] : []),
  ].join(', ');
}

export function conditionSql(condition: Condition, params: SqlParams): string {
  const onId = idCondition(condition);
  if (onId) return onId.id === null ? 'FALSE' : `id = ${params.add(onId.id)}`;
  const value = valueAt(condition.path);
  if (condition.kind === 'range' && condition.of === 'date') {
    const bounds = condition.bounds.map(
      ([operator, bound]) =>
        `${dateAt(condition.path)} ${OPERATOR[operator]} ${params.add((bound as Date).toISOString())}::text`,
    );
    return `(${bounds.join(' AND ')})`;
  }
  if (condition.kind === 'eq') {
    if (condition.value === null) return `(${value} IS NULL OR ${value} = 'null'::jsonb)`;
    const exact = `${value} = ${params.add(JSON.stringify(toJson(condition.value)))}::jsonb`;
    if (typeof condition.value !== 'string') return exact;
    // A JSON string equal to the value has the value as its text: the text form, implied by the exact comparison,
    // is the expression unique indexes are built on, so a lookup by a unique field is answered from its index.
    return `(${textAt(condition.path)} = ${params.add(condition.value)}::text AND ${exact})`;
  }
  const bounds = condition.bounds.map(
    ([operator, bound]) => `${value} ${OPERATOR[operator]} ${params.add(String(bound))}::jsonb`,
  );
  return `(jsonb_typeof(${value}) = 'number' AND ${bounds.join(' AND ')})`;
}

/** Missing values first when ascending (as MongoDB does), numbers by value, strings and dates by code point. */
export function orderSql(sort: { path: string[]; direction: 'asc' | 'desc' } | undefined): string {
  if (!sort) return 'ORDER BY id COLLATE "C" ASC';
  const direction = sort.direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
  if (sort.path[0] === 'id') return `ORDER BY id COLLATE "C" ${sort.direction.toUpperCase()}`;
  const value = valueAt(sort.path);
  return (
    `ORDER BY CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value} #>> '{}')::numeric END ${direction}, ` +
    `COALESCE(${value} ->> '${DATE_MEMBER}', ${value} #>> '{}') COLLATE "C" ${direction}, id COLLATE "C" ASC`
  );
}
