import { DATE_MEMBER, toJson } from '../document-json';
import { Condition, RangeOperator, idCondition } from '../query';

const OPERATOR: Record<RangeOperator, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** Numbered parameters for one statement. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function conditionSql(condition: Condition, params: SqlParams): string {
  const onId = idCondition(condition);
  if (onId) return onId.id === null ? 'FALSE' : `id = ${params.add(onId.id)}`;
  if (condition.kind === 'range' && condition.of === 'date') {
    const datePath = `${params.add([...condition.path, DATE_MEMBER])}::text[]`;
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
  if (sort.path[0] === 'id') return `ORDER BY id COLLATE "C" ${sort.direction.toUpperCase()}`;
  const value = `doc #> ${params.add(sort.path)}::text[]`;
  return (
    `ORDER BY CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value} #>> '{}')::numeric END ${direction}, ` +
    `COALESCE(${value} ->> '${DATE_MEMBER}', ${value} #>> '{}') COLLATE "C" ${direction}, id COLLATE "C" ASC`
  );
}
