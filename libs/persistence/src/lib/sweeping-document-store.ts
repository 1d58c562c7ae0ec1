import { Collection, CollectionDefinition, StoredDocument } from './collection';
import { DocumentStore, DocumentStoreOptions, checkDefinition } from './document-store';

const SWEEP_INTERVAL_MS = 60_000;

/** A collection whose storage the store creates on first use and whose expired documents it removes. */
export interface SweptCollection extends Collection<StoredDocument> {
  ensureStorage(): Promise<void>;
  /** Physically removes expired documents (reads already ignore them); returns how many. */
  sweepExpired(): Promise<number>;
}

/**
 * A store for a database without a TTL monitor of its own (PostgreSQL, SQLite): expired documents are hidden at
 * read time by each collection and physically removed here every minute.
 */
export abstract class SweepingDocumentStore extends DocumentStore {
  protected readonly now: () => Date;
  private readonly collections = new Map<string, Promise<SweptCollection>>();
  private readonly sweeper: NodeJS.Timeout;

  protected constructor(options: DocumentStoreOptions) {
    super();
    this.now = options.now ?? (() => new Date());
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  protected abstract openCollection(definition: CollectionDefinition): SweptCollection;

  /** Closes the connection once the sweeper has stopped. */
  protected abstract closeConnection(): Promise<void>;

  collection<T extends StoredDocument>(definition: CollectionDefinition): Promise<Collection<T>> {
    checkDefinition(definition);
    let opened = this.collections.get(definition.name);
    if (!opened) {
      const collection = this.openCollection(definition);
      opened = collection.ensureStorage().then(() => collection);
      opened.catch(() => this.collections.delete(definition.name));
      this.collections.set(definition.name, opened);
    }
    return opened as Promise<unknown> as Promise<Collection<T>>;
  }

  /** Removes expired documents of every opened collection; returns how many. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (const opened of this.collections.values()) {
      removed += await (await opened).sweepExpired().catch(() => 0);
    }
    return removed;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.closeConnection();
  }
}
