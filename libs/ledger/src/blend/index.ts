/** Blend v2 pools: storage layouts, Blend's fixed-point math and health factor, error codes, and a pool reader. */
export * from './auction-triggers';
export * from './auctions';
export * from './errors';
export * from './health';
export * from './layouts';
export * from './liquidation-scenarios';
export * from './math';
export * from './pool-events';
export * from './pool-operations';
export * from './pool-reader';
export * from './position-requests';
export * from './position-risk';
export * from './pool-triggers';
export * from './position-summary';
export * from './swap-receiver-client';
export * from './unwind-planner';
export * from './unwind-route';
export * as blendScVal from './scval';
