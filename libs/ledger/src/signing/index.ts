export * from './authorization-tree';
export * from './close-signing-rule';
export * from './pool-factory-client';
