export * from './token.contract';
