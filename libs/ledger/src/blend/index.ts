/** Blend v2 pools: storage layouts, Blend's fixed-point math and health factor, error codes, and a pool reader. */
import { registerContractErrors } from '../transactions';
import { BLEND_POOL_ERRORS } from './errors';

// Only the pool's own codes (1200+): the common ones (1-12) mirror the token contract's and keep its names.
registerContractErrors(Object.fromEntries(Object.entries(BLEND_POOL_ERRORS).filter(([code]) => Number(code) >= 1200)));

export * from './errors';
export * from './health';
export * from './layouts';
export * from './math';
export * from './pool-reader';
export * from './position-summary';
export * as blendScVal from './scval';
