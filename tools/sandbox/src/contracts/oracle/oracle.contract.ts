import { xdr } from '@stellar/stellar-sdk';
import { blendScVal, decodeOracleAsset, encodeOracleAsset, encodePriceData, type OracleAsset } from '@rp/ledger';
import { type ContractEnv, type NativeContract, defineContractKind } from '../../ledger/host/native-contract';
import { requiredArg, requiredInstance } from '../contract-args';

/**
 * A SEP-40 price feed the sandbox controls: `lastprice(asset)` answers the last `set_price`, stamped with the ledger
 * close time it was set at (or, sandbox only, the `timestamp` its optional third argument gives: the oracle keeper's
 * control stamps a price in the past to make it stale at once), which is what blend-sdk's `getOraclePrice` and the pool's `load_price` read
 * (`Option<PriceData{price, timestamp}>`: the map itself for Some, void for None). Storage: instance `Admin`,
 * `Base` (Asset), `Decimals`, `Resolution`, `Assets` (Vec<Asset>); persistent `Price(Asset)` -> PriceData.
 */

const ERRORS = { Unauthorized: 4, UnknownFunction: 1, BadArgument: 2, NegativePrice: 8 } as const;
const { readAddress, readI128, readU32, readU64, readVec, scAddress, scSymbol, scU32 } = blendScVal;
const VOID = xdr.ScVal.scvVoid();

const key = (name: string): xdr.ScVal => scSymbol(name);
const priceKey = (asset: OracleAsset): xdr.ScVal => xdr.ScVal.scvVec([scSymbol('Price'), encodeOracleAsset(asset)]);

const arg = (env: ContractEnv, args: readonly xdr.ScVal[], i: number): xdr.ScVal =>
  requiredArg(env, args, i, ERRORS.BadArgument);

const instance = (env: ContractEnv, name: string): xdr.ScVal =>
  requiredInstance(env, key(name), ERRORS.BadArgument, `oracle (${name})`);

function assets(env: ContractEnv): xdr.ScVal[] {
  const list = env.get('instance', key('Assets'));
  return list === undefined ? [] : readVec(list);
}

export const oracleContract: NativeContract = {
  invoke(env: ContractEnv, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    switch (fn) {
      case '__constructor':
        env.set('instance', key('Admin'), scAddress(readAddress(arg(env, args, 0))));
        env.set('instance', key('Base'), encodeOracleAsset(decodeOracleAsset(arg(env, args, 1))));
        env.set('instance', key('Decimals'), scU32(readU32(arg(env, args, 2))));
        env.set('instance', key('Resolution'), scU32(readU32(arg(env, args, 3))));
        env.set('instance', key('Assets'), xdr.ScVal.scvVec([]));
        return VOID;
      case 'set_price': {
        env.requireAuth(readAddress(instance(env, 'Admin')));
        const asset = decodeOracleAsset(arg(env, args, 0));
        const price = readI128(arg(env, args, 1));
        if (price < 0n) env.fail(ERRORS.NegativePrice);
        const timestamp = args.length > 2 ? readU64(arg(env, args, 2)) : env.ledger.timestamp;
        env.set('persistent', priceKey(asset), encodePriceData({ price, timestamp }));
        const encoded = encodeOracleAsset(asset);
        const known = assets(env);
        if (!known.some((a) => a.toXDR('base64') === encoded.toXDR('base64'))) {
          env.set('instance', key('Assets'), xdr.ScVal.scvVec([...known, encoded]));
        }
        return VOID;
      }
      case 'lastprice':
        return env.get('persistent', priceKey(decodeOracleAsset(arg(env, args, 0)))) ?? VOID;
      case 'decimals':
        return instance(env, 'Decimals');
      case 'resolution':
        return instance(env, 'Resolution');
      case 'base':
        return instance(env, 'Base');
      case 'assets':
        return xdr.ScVal.scvVec(assets(env));
      default:
        return env.fail(ERRORS.UnknownFunction, `unknown oracle function ${fn}`);
    }
  },
};

export const ORACLE_CONTRACT = defineContractKind('sep40-oracle', oracleContract);
