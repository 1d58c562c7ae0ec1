import { DynamicModule, Global, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { MongooseModule, getConnectionToken } from '@nestjs/mongoose';
import { ReadinessCheck } from '@rp/platform';
import type { Connection } from 'mongoose';
import { describeTarget, parseDatabaseUrl } from './database-url';
import { DocumentStore } from './document-store';
import { formerPgliteDataNotice } from './former-pglite-data';
import { MongoDocumentStore } from './mongo/mongo-document-store';
import { openDocumentStore } from './open-document-store';

@Injectable()
export class DatabaseReadiness implements ReadinessCheck {
  readonly name = 'database';

  constructor(private readonly store: DocumentStore) {}

  check(): Promise<void> {
    return this.store.ping();
  }
}

@Injectable()
class DatabaseShutdown implements OnApplicationShutdown {
  constructor(private readonly store: DocumentStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

export interface PersistenceOptions {
  /** The app's name: the embedded database is the file `.data/<appName>.sqlite`. */
  appName: string;
  /** `DATABASE_URL` (or one composed from `DATABASE_*`); unset for the embedded default. */
  url: string | undefined;
}

/**
 * The app's `DocumentStore`, on the driver `DATABASE_URL` names, and its readiness check. MongoDB goes through
 * the `@nestjs/mongoose` connection (which also closes it); PostgreSQL and SQLite stores are closed on shutdown.
 */
@Global()
@Module({})
export class PersistenceModule {
  static forRoot(options: PersistenceOptions): DynamicModule {
    const target = parseDatabaseUrl(options.url, options.appName);
    const logger = new Logger('Persistence');
    if (target.driver === 'mongodb') {
      return {
        module: PersistenceModule,
        imports: [
          MongooseModule.forRoot(target.url, {
            bufferCommands: false,
            serverSelectionTimeoutMS: 5000,
            retryAttempts: 5,
          }),
        ],
        providers: [
          {
            provide: DocumentStore,
            useFactory: (connection: Connection) => {
              logger.log(`database: ${describeTarget(target)}`);
              return new MongoDocumentStore(connection);
            },
            inject: [getConnectionToken()],
          },
          DatabaseReadiness,
        ],
        exports: [DocumentStore, DatabaseReadiness],
      };
    }
    return {
      module: PersistenceModule,
      providers: [
        {
          provide: DocumentStore,
          useFactory: async () => {
            const store = await openDocumentStore(target);
            logger.log(`database: ${describeTarget(target)}`);
            const notice = formerPgliteDataNotice(target, options.appName);
            if (notice) logger.warn(notice);
            return store;
          },
        },
        DatabaseReadiness,
        DatabaseShutdown,
      ],
      exports: [DocumentStore, DatabaseReadiness],
    };
  }
}
