import { CollectionDefinition, StoredDocument } from '../collection';
import { DocumentStoreOptions } from '../document-store';
import { SweepingDocumentStore, SweptCollection } from '../sweeping-document-store';
import { SqlCollection } from './sql-collection';
import { SqlExecutor } from './sql-executor';

/** PostgreSQL. Expired documents are hidden at once and physically removed every minute. */
export class SqlDocumentStore extends SweepingDocumentStore {
  readonly driver = 'postgres' as const;

  constructor(
    private readonly db: SqlExecutor,
    options: DocumentStoreOptions = {},
  ) {
    super(options);
  }

  protected openCollection(definition: CollectionDefinition): SweptCollection {
    return new SqlCollection<StoredDocument>(this.db, definition, this.now);
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  protected closeConnection(): Promise<void> {
    return this.db.close();
  }
}
