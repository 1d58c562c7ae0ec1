export * from './network';
export * from './rpc';
export * from './token';
export * from './transactions';
export * from './wallet';
export * from './blend';
export * from './x402';
export * from './signing';
