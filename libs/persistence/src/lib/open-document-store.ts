import { DatabaseTarget } from './database-url';
import { DocumentStore, DocumentStoreOptions } from './document-store';
import { SqliteDocumentStore } from './sqlite/sqlite-document-store';

/**
 * Opens a store outside Nest (tests, tools, the agent). For MongoDB it opens and owns its own mongoose connection;
 * inside the apps the Nest module uses the `@nestjs/mongoose` connection instead. The PostgreSQL and MongoDB
 * drivers are loaded only when the URL names them, so a process on the embedded SQLite never carries them.
 */
export async function openDocumentStore(
  target: DatabaseTarget,
  options: DocumentStoreOptions = {},
): Promise<DocumentStore> {
  switch (target.driver) {
    case 'sqlite':
      return SqliteDocumentStore.open(target.file, options);
    case 'postgres': {
      const [{ PgExecutor }, { SqlDocumentStore }] = await Promise.all([
        import('./sql/pg-executor'),
        import('./sql/sql-document-store'),
      ]);
      return new SqlDocumentStore(await PgExecutor.connect(target.url), options);
    }
    case 'mongodb': {
      const [{ createConnection }, { MongoDocumentStore }] = await Promise.all([
        import('mongoose'),
        import('./mongo/mongo-document-store'),
      ]);
      const connection = await createConnection(target.url, {
        bufferCommands: false,
        serverSelectionTimeoutMS: 5000,
      }).asPromise();
      return new MongoDocumentStore(connection, { ...options, ownsConnection: true });
    }
  }
}
