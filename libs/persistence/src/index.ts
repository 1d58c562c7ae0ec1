export * from './lib/collection';
export * from './lib/database-url';
export * from './lib/document-store';
export * from './lib/errors';
export * from './lib/open-document-store';
export * from './lib/persistence.module';
export * from './lib/test-databases';
