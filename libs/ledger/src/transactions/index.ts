export * from './build-invocation';
export * from './contract-errors';
export * from './simulate';
export * from './submit';
