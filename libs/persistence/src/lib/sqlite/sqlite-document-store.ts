import { CollectionDefinition, StoredDocument } from '../collection';
import { DocumentStoreOptions } from '../document-store';
import { SweepingDocumentStore, SweptCollection } from '../sweeping-document-store';
import { SqliteCollection } from './sqlite-collection';
import { SqliteConnection } from './sqlite-connection';

/**
 * The embedded database: SQLite through better-sqlite3, in one file (write-ahead log, `synchronous=FULL`) or in
 * memory, on one connection. Expired documents are hidden at once and physically removed every minute.
 */
export class SqliteDocumentStore extends SweepingDocumentStore {
  readonly driver = 'sqlite' as const;

  private constructor(
    private readonly connection: SqliteConnection,
    options: DocumentStoreOptions,
  ) {
    super(options);
  }

  /** `file` undefined: in memory, gone when the store closes. */
  static open(file: string | undefined, options: DocumentStoreOptions = {}): SqliteDocumentStore {
    return new SqliteDocumentStore(SqliteConnection.open(file), options);
  }

  protected openCollection(definition: CollectionDefinition): SweptCollection {
    return new SqliteCollection<StoredDocument>(this.connection, definition, this.now);
  }

  async ping(): Promise<void> {
    this.connection.get('SELECT 1');
  }

  protected async closeConnection(): Promise<void> {
    this.connection.close();
  }
}
