import { createConnection } from 'mongoose';
import { DatabaseTarget } from './database-url';
import { DocumentStore, DocumentStoreOptions } from './document-store';
import { MongoDocumentStore } from './mongo/mongo-document-store';
import { PgExecutor } from './sql/pg-executor';
import { SqlDocumentStore } from './sql/sql-document-store';
import { SqliteDocumentStore } from './sqlite/sqlite-document-store';

/**
 * Opens a store outside Nest (tests, tools). For MongoDB it opens and owns its own mongoose connection; inside
 * the apps the Nest module uses the `@nestjs/mongoose` connection instead.
 */
export async function openDocumentStore(
  target: DatabaseTarget,
  options: DocumentStoreOptions = {},
): Promise<DocumentStore> {
  switch (target.driver) {
    case 'sqlite':
      return SqliteDocumentStore.open(target.file, options);
    case 'postgres':
      return new SqlDocumentStore(await PgExecutor.connect(target.url), options);
    case 'mongodb': {
      const connection = await createConnection(target.url, {
        bufferCommands: false,
        serverSelectionTimeoutMS: 5000,
      }).asPromise();
      return new MongoDocumentStore(connection, { ...options, ownsConnection: true });
    }
  }
}
