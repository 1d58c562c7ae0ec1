/**
 * Documents as JSON for the SQL drivers (PostgreSQL jsonb, SQLite JSON text). JSON has no date type, so a `Date`
 * is stored as `{"$date": "<ISO 8601>"}`: ISO strings of one format sort like the instants they name, and no
 * document can hold a `$date` field of its own (`cleanDocument` refuses names starting with `$`).
 */
export const DATE_MEMBER = '$date';

export function toJson(value: unknown): unknown {
  if (value instanceof Date) return { [DATE_MEMBER]: value.toISOString() };
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
    if (entries.length === 1 && entries[0][0] === DATE_MEMBER && typeof entries[0][1] === 'string') {
      return new Date(entries[0][1]);
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, fromJson(item)]));
  }
  return value;
}
