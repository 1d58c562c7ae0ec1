export { BLEND_POOL_CONTRACT, blendPoolContract } from './contract';
