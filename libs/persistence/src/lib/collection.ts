/**
 * The narrow collection API every repository is written against. It is implemented on MongoDB, PostgreSQL and
 * embedded SQLite with the same semantics; the contract suite (`document-store.contract.int-spec.ts`) holds them
 * to it.
 *
 * - Documents are JSON-like: strings, finite numbers, booleans, null, `Date`, arrays and nested objects. A `bigint`
 *   is stored as its decimal string; amounts travel as strings end to end, so large integers round-trip exactly.
 * - Every document has a string `id` (generated when not given).
 * - Field names must not start with `$` or contain `.`; dotted paths in filters reach into nested objects.
 */
export interface StoredDocument {
  id: string;
}

export type NewDocument<T extends StoredDocument> = Omit<T, 'id'> & { id?: string };

export type Comparable = number | Date;

/** A range on a number or a date field; bounds of one range are of one kind. */
export interface RangeCondition {
  $gt?: Comparable;
  $gte?: Comparable;
  $lt?: Comparable;
  $lte?: Comparable;
}

/**
 * Equality on a scalar or a date (`null` matches a missing field too), or a range. Arrays and whole nested
 * objects are not compared: filter on a dotted path instead.
 */
export type FilterValue = string | number | boolean | null | Date | RangeCondition;

/** Conditions on top-level or dotted nested fields, all of which must hold. */
export type Filter = Readonly<Record<string, FilterValue>>;

export interface Sort {
  field: string;
  direction: 'asc' | 'desc';
}

export interface FindOptions {
  /** One field; documents missing it come first in ascending order. Ties are broken by `id`. */
  sort?: Sort;
  limit?: number;
}

/** Changes to top-level fields of one document. */
export interface Update<T extends StoredDocument> {
  set?: Partial<Omit<T, 'id'>>;
  /** Only when the update inserts (upsert). */
  setOnInsert?: Partial<Omit<T, 'id'>>;
  inc?: Partial<Record<Exclude<keyof T, 'id'>, number>>;
  unset?: Exclude<keyof T, 'id'>[];
}

export interface UpdateResult<T> {
  matched: boolean;
  upserted: boolean;
  /** The document after the update, or `null` when nothing matched and nothing was inserted. */
  document: T | null;
}

export interface UniqueIndex {
  /** Stable name; a violation reports it. */
  name: string;
  /** Top-level or dotted fields. Documents missing one of them never conflict. */
  fields: string[];
}

/**
 * A non-unique index for reads that filter on equalities and then, optionally, a range of one `Date` field (a
 * wallet's points between two times): a filter holding the `fields` (and the `dateRange` field) is answered from
 * the index on every driver instead of a scan of the collection. It changes no result, only how fast one comes.
 */
export interface LookupIndex {
  /** Stable name, unique within the collection (unique indexes included). */
  name: string;
  /** Top-level or dotted fields compared for equality (strings, numbers, booleans). */
  fields: string[];
  /** A field holding a `Date`, compared by a range after the equalities. */
  dateRange?: string;
}

export interface CollectionDefinition {
  /** Lower-case letters, digits and `_`, starting with a letter. */
  name: string;
  unique?: UniqueIndex[];
  indexes?: LookupIndex[];
  /** A document disappears once the `Date` in this field has passed (it is absent from every read at once). */
  ttl?: { field: string };
}

export interface Collection<T extends StoredDocument> {
  readonly name: string;
  insert(document: NewDocument<T>): Promise<T>;
  /**
   * Inserts many documents in one round trip. A document whose id or unique key is already taken is skipped (not
   * an error), so a batch written twice leaves each document once; returns how many were inserted.
   */
  insertMany(documents: readonly NewDocument<T>[]): Promise<number>;
  findOne(filter: Filter, options?: Pick<FindOptions, 'sort'>): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Updates the first match (by `id`), or inserts one built from the filter's equalities when `upsert` is set. */
  updateOne(filter: Filter, update: Update<T>, options?: { upsert?: boolean }): Promise<UpdateResult<T>>;
  /** Removes every match; returns how many. */
  delete(filter: Filter): Promise<number>;
  count(filter: Filter): Promise<number>;
}
