export * from './lib/api-error';
export * from './lib/rp-client';
export type { components, operations, paths } from './generated/api';
