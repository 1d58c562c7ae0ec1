// The store without Nest: what a process that does not run Nest (the agent) needs to open and use its database.
// `@rp/persistence` exports the same plus the Nest module; this entry point loads neither Nest nor a driver the
// database URL does not name.
export * from './lib/collection';
export * from './lib/database-url';
export * from './lib/document-store';
export * from './lib/errors';
export * from './lib/open-document-store';
