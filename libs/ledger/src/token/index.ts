export * from './token-amount';
export * from './token-client';
export * from './token-errors';
