export * from './assisted-signing';
export * from './exact-payment';
export * from './exact-settlement';
export * from './ledger-timing';
export * from './exact-transfer';
export * from './x402-messages';
export * from './settlement-ledger';
export * from './key-purchase';
