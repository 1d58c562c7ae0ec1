import { Collection, CollectionDefinition, StoredDocument } from '../collection';
import { DatabaseDriver, DocumentStore, DocumentStoreOptions, checkDefinition } from '../document-store';
import { SqlCollection } from './sql-collection';
import { SqlExecutor } from './sql-executor';

const SWEEP_INTERVAL_MS = 60_000;

/** PostgreSQL or PGlite. Expired documents are hidden at once and physically removed every minute. */
export class SqlDocumentStore extends DocumentStore {
  private readonly collections = new Map<string, Promise<SqlCollection<StoredDocument>>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => Date;

  constructor(
    readonly driver: Extract<DatabaseDriver, 'postgres' | 'pglite'>,
    private readonly db: SqlExecutor,
    options: DocumentStoreOptions = {},
  ) {
    super();
    this.now = options.now ?? (() => new Date());
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  collection<T extends StoredDocument>(definition: CollectionDefinition): Promise<Collection<T>> {
    checkDefinition(definition);
    let opened = this.collections.get(definition.name);
    if (!opened) {
      const collection = new SqlCollection<StoredDocument>(this.db, definition, this.now);
      opened = collection.ensureStorage().then(() => collection);
      opened.catch(() => this.collections.delete(definition.name));
      this.collections.set(definition.name, opened);
    }
    return opened as Promise<unknown> as Promise<Collection<T>>;
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
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
    await this.db.close();
  }
}
