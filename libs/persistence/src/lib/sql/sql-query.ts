import { InvalidQueryError } from '../errors';
import { Condition, RangeOperator } from '../query';

const OPERATOR: Record<RangeOperator, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** Numbered parameters for one statement. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Dates are stored in jsonb as `{"$date": "<ISO 8601>"}`; ISO strings of one format sort like the instants. */
export function toJson(value: unknown): unknown {
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJson(item)]));
  }
  return value;
}

export function fromJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0][0] === '$date' && typeof entries[0][1] === 'string') {
      return new Date(entries[0][1]);
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, fromJson(item)]));
  }
  return value;
}

function isId(path: string[]): boolean {
  return path[0] === 'id';
}

export function conditionSql(condition: Condition, params: SqlParams): string {
  if (isId(condition.path)) {
    if (condition.path.length > 1 || condition.kind !== 'eq')
      throw new InvalidQueryError('id can only be compared for equality');
    return condition.value === null ? 'FALSE' : `id = ${params.add(String(condition.value))}`;
  }
  if (condition.kind === 'range' && condition.of === 'date') {
    const datePath = `${params.add([...condition.path, '$date'])}::text[]`;
    const bounds = condition.bounds.map(
      ([operator, bound]) =>
        `(doc #>> ${datePath}) COLLATE "C" ${OPERATOR[operator]} ${params.add((bound as Date).toISOString())}::text`,
    );
    return `(${bounds.join(' AND ')})`;
  }
  const path = `${params.add(condition.path)}::text[]`;
  if (condition.kind === 'eq') {
    if (condition.value === null) return `(doc #> ${path} IS NULL OR doc #> ${path} = 'null'::jsonb)`;
    return `doc #> ${path} = ${params.add(JSON.stringify(toJson(condition.value)))}::jsonb`;
  }
  const bounds = condition.bounds.map(
    ([operator, bound]) => `doc #> ${path} ${OPERATOR[operator]} ${params.add(String(bound))}::jsonb`,
  );
  return `(jsonb_typeof(doc #> ${path}) = 'number' AND ${bounds.join(' AND ')})`;
}

/** Missing values first when ascending (as MongoDB does), numbers by value, strings and dates by code point. */
export function orderSql(sort: { path: string[]; direction: 'asc' | 'desc' } | undefined, params: SqlParams): string {
  if (!sort) return 'ORDER BY id COLLATE "C" ASC';
  const direction = sort.direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
  if (isId(sort.path)) return `ORDER BY id COLLATE "C" ${sort.direction.toUpperCase()}`;
  const value = `doc #> ${params.add(sort.path)}::text[]`;
  return (
    `ORDER BY CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value} #>> '{}')::numeric END ${direction}, ` +
    `COALESCE(${value} ->> '$date', ${value} #>> '{}') COLLATE "C" ${direction}, id COLLATE "C" ASC`
  );
}
