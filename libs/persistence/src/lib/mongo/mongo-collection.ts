import { randomUUID } from 'node:crypto';
import { mongo } from 'mongoose';
import {
  Collection,
  CollectionDefinition,
  Filter,
  FindOptions,
  NewDocument,
  StoredDocument,
  Update,
  UpdateResult,
} from '../collection';
import { insertFreeingExpiredKeys, writeFreeingExpiredKeys } from '../errors';
import { checkLimit, checkSort, checkUpdate, parseFilter, splitNewDocument } from '../query';
import { MongoFilter, mongoFilter, mongoSort, withExpiry } from './mongo-query';

type RawDocument = { _id: string } & Record<string, unknown>;

/** One collection on MongoDB: `_id` holds our `id`; unique, lookup and TTL indexes are MongoDB's own. */
export class MongoCollection<T extends StoredDocument> implements Collection<T> {
  readonly name: string;

  constructor(
    private readonly raw: mongo.Collection<RawDocument>,
    private readonly definition: CollectionDefinition,
    private readonly now: () => Date,
  ) {
    this.name = definition.name;
  }

  async ensureStorage(): Promise<void> {
    for (const index of this.definition.unique ?? []) {
      await this.raw.createIndex(Object.fromEntries(index.fields.map((field) => [field, 1])), {
        name: index.name,
        unique: true,
        // Documents missing an indexed field never conflict, as on PostgreSQL.
        partialFilterExpression: Object.fromEntries(index.fields.map((field) => [field, { $exists: true }])),
      });
    }
    for (const index of this.definition.indexes ?? []) {
      const fields = [...index.fields, ...(index.dateRange ? [index.dateRange] : [])];
      await this.raw.createIndex(Object.fromEntries(fields.map((field) => [field, 1])), { name: index.name });
    }
    if (this.definition.ttl) {
      await this.raw.createIndex({ [this.definition.ttl.field]: 1 }, { name: 'ttl', expireAfterSeconds: 0 });
    }
  }

  async insert(document: NewDocument<T>): Promise<T> {
    const { id, fields } = splitNewDocument(document);
    await this.retryAfterSweep(() => this.raw.insertOne({ _id: id, ...fields }));
    return { id, ...fields } as unknown as T;
  }

  /** One unordered `insertMany`: every free document goes in; duplicate keys (E11000) are skipped. */
  async insertMany(documents: readonly NewDocument<T>[]): Promise<number> {
    if (documents.length === 0) return 0;
    const raws = documents.map((document) => {
      const { id, fields } = splitNewDocument(document);
      return { _id: id, ...fields } as RawDocument;
    });
    const write = async (): Promise<number> => {
      try {
        return (await this.raw.insertMany(raws, { ordered: false })).insertedCount;
      } catch (error) {
        const bulk = error as { writeErrors?: unknown; insertedCount?: unknown };
        const failures = ([] as { code?: unknown }[]).concat((bulk.writeErrors ?? []) as { code?: unknown }[]);
        if (failures.length === 0 || !failures.every((failure) => failure.code === 11000)) throw error;
        return typeof bulk.insertedCount === 'number' ? bulk.insertedCount : raws.length - failures.length;
      }
    };
    // MongoDB's own TTL monitor removes expired documents; a key an expired one still holds is freed by a sweep.
    return insertFreeingExpiredKeys(raws.length, write, this.definition.ttl ? () => this.sweepExpired() : undefined);
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    return (await this.find(filter, { ...options, limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.raw.find(this.query(filter)).sort(mongoSort(checkSort(options.sort)));
    const limit = checkLimit(options.limit);
    if (limit) cursor = cursor.limit(limit);
    return (await cursor.toArray()).map((raw) => toDocument<T>(raw));
  }

  count(filter: Filter): Promise<number> {
    return this.raw.countDocuments(this.query(filter));
  }

  async delete(filter: Filter): Promise<number> {
    return (await this.raw.deleteMany(this.query(filter))).deletedCount;
  }

  async updateOne(filter: Filter, update: Update<T>, options: { upsert?: boolean } = {}): Promise<UpdateResult<T>> {
    const checked = checkUpdate(update);
    const conditions = parseFilter(filter);
    const setFields = new Set(Object.keys(checked.set ?? {}));
    const onInsert: Record<string, unknown> = Object.fromEntries(
      Object.entries(checked.setOnInsert ?? {}).filter(([field]) => !setFields.has(field)),
    );
    if (options.upsert && !conditions.some((condition) => condition.path[0] === 'id')) onInsert['_id'] = randomUUID();
    const changes: Record<string, unknown> = {};
    if (setFields.size > 0) changes['$set'] = checked.set;
    if (checked.inc && Object.keys(checked.inc).length > 0) changes['$inc'] = checked.inc;
    if (checked.unset?.length) changes['$unset'] = Object.fromEntries(checked.unset.map((field) => [field, '']));
    if (options.upsert && Object.keys(onInsert).length > 0) changes['$setOnInsert'] = onInsert;
    if (Object.keys(changes).length === 0) {
      const document = await this.findOne(filter);
      return { matched: document !== null, upserted: false, document };
    }

    const attempt = async (): Promise<UpdateResult<T>> => {
      const result = await this.raw.findOneAndUpdate(this.query(filter), changes, {
        upsert: options.upsert ?? false,
        returnDocument: 'after',
        includeResultMetadata: true,
        sort: { _id: 1 },
      });
      const document = result.value ? toDocument<T>(result.value) : null;
      const upserted = result.lastErrorObject?.['upserted'] !== undefined;
      return { matched: document !== null && !upserted, upserted, document };
    };
    // Two racing upserts of one key: the loser's insert hits the unique index; the second try finds the winner's.
    return this.retryAfterSweep(() =>
      attempt().catch((error) => (isDuplicate(error) && options.upsert ? attempt() : Promise.reject(error))),
    );
  }

  async sweepExpired(): Promise<number> {
    const field = this.definition.ttl?.field;
    if (!field) return 0;
    return (await this.raw.deleteMany({ [field]: { $lte: this.now() } })).deletedCount;
  }

  private query(filter: Filter): MongoFilter {
    return withExpiry(mongoFilter(parseFilter(filter)), this.definition.ttl?.field, this.now());
  }

  private retryAfterSweep<R>(write: () => Promise<R>): Promise<R> {
    return writeFreeingExpiredKeys(
      this.name,
      write,
      duplicateIndexOf,
      this.definition.ttl ? () => this.sweepExpired() : undefined,
    );
  }
}

/** The index an E11000 error names (`_id_` is our `id`), or `undefined` for any other error. */
function duplicateIndexOf(error: unknown): string | undefined {
  if (!isDuplicate(error)) return undefined;
  const named = /index: (\S+)/.exec(String((error as { message?: unknown }).message));
  return named?.[1] === '_id_' ? 'id' : (named?.[1] ?? 'unknown');
}

function isDuplicate(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 11000;
}

function toDocument<T>(raw: RawDocument): T {
  const { _id, ...fields } = raw;
  return { id: _id, ...fields } as unknown as T;
}
