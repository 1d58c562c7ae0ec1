import type { Connection } from 'mongoose';
import { Collection, CollectionDefinition, StoredDocument } from '../collection';
import { DocumentStore, DocumentStoreOptions, checkDefinition } from '../document-store';
import { MongoCollection } from './mongo-collection';

/**
 * MongoDB through a mongoose connection (in the apps, the one `@nestjs/mongoose` opens). MongoDB's TTL monitor
 * removes expired documents about once a minute; reads hide them at once.
 */
export class MongoDocumentStore extends DocumentStore {
  readonly driver = 'mongodb' as const;
  private readonly collections = new Map<string, Promise<MongoCollection<StoredDocument>>>();
  private readonly now: () => Date;
  private readonly ownsConnection: boolean;

  constructor(
    private readonly connection: Connection,
    options: DocumentStoreOptions & { ownsConnection?: boolean } = {},
  ) {
    super();
    this.now = options.now ?? (() => new Date());
    this.ownsConnection = options.ownsConnection ?? false;
  }

  collection<T extends StoredDocument>(definition: CollectionDefinition): Promise<Collection<T>> {
    checkDefinition(definition);
    let opened = this.collections.get(definition.name);
    if (!opened) {
      const db = this.connection.db;
      if (!db) return Promise.reject(new Error('the MongoDB connection is not open'));
      const collection = new MongoCollection<StoredDocument>(db.collection(definition.name), definition, this.now);
      opened = collection.ensureStorage().then(() => collection);
      opened.catch(() => this.collections.delete(definition.name));
      this.collections.set(definition.name, opened);
    }
    return opened as Promise<unknown> as Promise<Collection<T>>;
  }

  async ping(): Promise<void> {
    const db = this.connection.db;
    if (!db) throw new Error('the MongoDB connection is not open');
    await db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.connection.close();
  }
}
