export * from './token-amount';
export * from './token-client';
