export * from './assisted-signing';
export * from './exact-payment';
export * from './exact-transfer';
export * from './x402-messages';
