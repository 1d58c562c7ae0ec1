import { xdr } from '@stellar/stellar-sdk';
import { blendScVal } from '@rp/ledger';
import { type ContractEnv, type NativeContract, defineContractKind } from '../../ledger/host/native-contract';
import { requiredArg, requiredInstance } from '../contract-args';

/**
 * A stand-in for Blend v2's pool factory (blend-capital/blend-contracts-v2, `pool-factory`), as far as anyone reads
 * it: `is_pool(pool_address) -> bool` answers whether the factory made that pool. The real factory records each pool
 * it deploys (persistent `Pools(address)`); here the sandbox deploys pools itself and the admin records them with
 * `register(pool)`. Storage: instance `Admin`; persistent `Pools(address)` -> true.
 */

const ERRORS = { UnknownFunction: 1, BadArgument: 2 } as const;
const { readAddress, scAddress, scBool, scSymbol } = blendScVal;
const VOID = xdr.ScVal.scvVoid();

const poolKey = (pool: string): xdr.ScVal => xdr.ScVal.scvVec([scSymbol('Pools'), scAddress(pool)]);
const arg = (env: ContractEnv, args: readonly xdr.ScVal[], i: number): xdr.ScVal =>
  requiredArg(env, args, i, ERRORS.BadArgument);

export const poolFactoryContract: NativeContract = {
  invoke(env: ContractEnv, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    switch (fn) {
      case '__constructor':
        env.set('instance', scSymbol('Admin'), scAddress(readAddress(arg(env, args, 0))));
        return VOID;
      case 'register':
        env.requireAuth(readAddress(requiredInstance(env, scSymbol('Admin'), ERRORS.BadArgument, 'factory (Admin)')));
        env.set('persistent', poolKey(readAddress(arg(env, args, 0))), scBool(true));
        return VOID;
      case 'is_pool':
        return scBool(env.get('persistent', poolKey(readAddress(arg(env, args, 0)))) !== undefined);
      default:
        return env.fail(ERRORS.UnknownFunction, `unknown pool factory function ${fn}`);
    }
  },
};

export const POOL_FACTORY_CONTRACT = defineContractKind('blend-pool-factory-v2', poolFactoryContract);
