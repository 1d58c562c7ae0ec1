export { POOL_FACTORY_CONTRACT, poolFactoryContract } from './pool-factory.contract';
