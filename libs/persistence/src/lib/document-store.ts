import { Collection, CollectionDefinition, LookupIndex, StoredDocument } from './collection';
import { InvalidQueryError } from './errors';
import { fieldPath } from './query';

export type DatabaseDriver = 'mongodb' | 'postgres' | 'sqlite';

export interface DocumentStoreOptions {
  /** The clock that decides expiry; tests move it. */
  now?: () => Date;
}

/** The database of one app: named collections behind one API, whatever the driver. Inject it by this class. */
export abstract class DocumentStore {
  abstract readonly driver: DatabaseDriver;

  /** Opens a collection, creating its storage and indexes on first use. */
  abstract collection<T extends StoredDocument>(definition: CollectionDefinition): Promise<Collection<T>>;

  /** Resolves when the database answers. */
  abstract ping(): Promise<void>;

  abstract close(): Promise<void>;
}

const NAME = /^[a-z][a-z0-9_]{0,40}$/;

/** Checks a collection definition once, for every driver alike. */
export function checkDefinition(definition: CollectionDefinition): void {
  if (!NAME.test(definition.name)) {
    throw new InvalidQueryError(`collection name "${definition.name}" must match ${NAME}`);
  }
  const names = new Set<string>();
  const indexes: LookupIndex[] = [...(definition.unique ?? []), ...(definition.indexes ?? [])];
  for (const index of indexes) {
    if (!NAME.test(index.name)) throw new InvalidQueryError(`index name "${index.name}" must match ${NAME}`);
    if (names.has(index.name)) throw new InvalidQueryError(`index name "${index.name}" is used twice`);
    names.add(index.name);
    if (index.fields.length === 0 && index.dateRange === undefined) {
      throw new InvalidQueryError(`index ${index.name} has no fields`);
    }
    index.fields.forEach(fieldPath);
    if (index.dateRange !== undefined) fieldPath(index.dateRange);
  }
  if (definition.ttl) fieldPath(definition.ttl.field);
}
