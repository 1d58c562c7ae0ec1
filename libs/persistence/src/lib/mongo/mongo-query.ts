import { Condition } from '../query';

export type MongoFilter = Record<string, unknown>;

/** Our conditions as a MongoDB filter: `id` is `_id`, paths are dotted, dates and nulls behave as on SQL. */
export function mongoFilter(conditions: Condition[]): MongoFilter {
  const filter: MongoFilter = {};
  for (const condition of conditions) {
    const key = condition.path[0] === 'id' ? '_id' : condition.path.join('.');
    filter[key] =
      condition.kind === 'eq'
        ? condition.value
        : Object.fromEntries(condition.bounds.map(([op, bound]) => [op, bound]));
  }
  return filter;
}

/** Documents whose TTL field holds a date that has passed are absent; a field that is not a date never expires. */
export function withExpiry(filter: MongoFilter, ttlField: string | undefined, now: Date): MongoFilter {
  if (!ttlField) return filter;
  const alive = { $or: [{ [ttlField]: { $gt: now } }, { [ttlField]: { $not: { $type: 'date' } } }] };
  return Object.keys(filter).length === 0 ? alive : { $and: [filter, alive] };
}

export function mongoSort(sort: { path: string[]; direction: 'asc' | 'desc' } | undefined): Record<string, 1 | -1> {
  if (!sort) return { _id: 1 };
  const key = sort.path[0] === 'id' ? '_id' : sort.path.join('.');
  return key === '_id'
    ? { _id: sort.direction === 'asc' ? 1 : -1 }
    : { [key]: sort.direction === 'asc' ? 1 : -1, _id: 1 };
}
