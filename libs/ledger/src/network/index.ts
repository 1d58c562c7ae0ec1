export * from './addresses';
export * from './endpoints';
export * from './ledger-network';
export * from './usdc';
