import { xdr } from '@stellar/stellar-sdk';
import {
  BLEND_POOL_ERROR,
  blendScVal,
  decodeFlashLoan,
  encodeAuctionData,
  decodeRequest,
  decodeReserveConfig,
  decodeReserveData,
  encodePoolConfig,
  encodePositions,
  encodeReserve,
} from '@rp/ledger';
import { type ContractEnv, type NativeContract, defineContractKind } from '../../ledger/host/native-contract';
import { requiredArg } from '../contract-args';
import { initializePool, setReserve, setStatus, updatePool } from './admin';
import { deleteStaleAuction, getAuction, newAuction } from './auctions';
import { PoolState } from './pool-state';
import { PoolStorage } from './storage';
import { executeFlashLoan, executeSubmit } from './submit';

const { readAddress, readI128, readString, readU32, readVec, scAddress, scI128, scSymbol, scU32 } = blendScVal;
const VOID = xdr.ScVal.scvVoid();

const arg = (env: ContractEnv, args: readonly xdr.ScVal[], i: number): xdr.ScVal =>
  requiredArg(env, args, i, BLEND_POOL_ERROR.BadRequest);

function requireAdmin(env: ContractEnv): string {
  const admin = new PoolStorage(env).admin();
  env.requireAuth(admin);
  return admin;
}

type Handler = (env: ContractEnv, args: readonly xdr.ScVal[]) => xdr.ScVal;

/** `submit` / `submit_with_allowance`: the spender always signs, `from` too when it is someone else. */
const submit =
  (useAllowance: boolean): Handler =>
  (env, args) => {
    const from = readAddress(arg(env, args, 0));
    const spender = readAddress(arg(env, args, 1));
    const to = readAddress(arg(env, args, 2));
    env.requireAuth(spender);
    if (from !== spender) env.requireAuth(from);
    const requests = readVec(arg(env, args, 3)).map(decodeRequest);
    return encodePositions(executeSubmit(env, { from, spender, to }, requests, useAllowance));
  };

/** Blend v2 pool functions (pool/src/contract.rs) the sandbox implements, plus sandbox-only admin hooks. */
const HANDLERS: Readonly<Record<string, Handler>> = {
  __constructor: (env, args) => {
    initializePool(env, {
      admin: readAddress(arg(env, args, 0)),
      name: readString(arg(env, args, 1)),
      oracle: readAddress(arg(env, args, 2)),
      bstopRate: readU32(arg(env, args, 3)),
      maxPositions: readU32(arg(env, args, 4)),
      minCollateral: readI128(arg(env, args, 5)),
      backstop: readAddress(arg(env, args, 6)),
      blnd: readAddress(arg(env, args, 7)),
    });
    return VOID;
  },
  submit: submit(false),
  submit_with_allowance: submit(true),
  flash_loan: (env, args) => {
    const from = readAddress(arg(env, args, 0));
    env.requireAuth(from);
    const loan = decodeFlashLoan(arg(env, args, 1));
    const requests = readVec(arg(env, args, 2)).map(decodeRequest);
    return encodePositions(executeFlashLoan(env, from, loan, requests));
  },
  set_reserve: (env, args) => {
    requireAdmin(env);
    if (args.length !== 2) env.fail(BLEND_POOL_ERROR.BadRequest, 'sandbox set_reserve takes (asset, config)');
    return scU32(setReserve(env, readAddress(arg(env, args, 0)), decodeReserveConfig(arg(env, args, 1))));
  },
  set_status: (env, args) => {
    setStatus(env, readU32(arg(env, args, 0)));
    return VOID;
  },
  update_pool: (env, args) => {
    const admin = requireAdmin(env);
    const [rate, max, min] = [readU32(arg(env, args, 0)), readU32(arg(env, args, 1)), readI128(arg(env, args, 2))];
    updatePool(env, rate, max, min);
    env.emit([scSymbol('update_pool'), scAddress(admin)], xdr.ScVal.scvVec([scU32(rate), scU32(max), scI128(min)]));
    return VOID;
  },
  /** Sandbox only: overwrite a reserve's data (rates, supplies) so the control API can force a scenario. */
  set_reserve_data: (env, args) => {
    requireAdmin(env);
    const storage = new PoolStorage(env);
    const asset = readAddress(arg(env, args, 0));
    storage.reserveConfig(asset); // fails with BadRequest for an unknown reserve
    storage.setReserveData(asset, decodeReserveData(arg(env, args, 1)));
    return VOID;
  },
  new_auction: (env, args) =>
    encodeAuctionData(
      newAuction(env, {
        auctionType: readU32(arg(env, args, 0)),
        user: readAddress(arg(env, args, 1)),
        bid: readVec(arg(env, args, 2)).map((a) => readAddress(a)),
        lot: readVec(arg(env, args, 3)).map((a) => readAddress(a)),
        percent: readU32(arg(env, args, 4)),
      }),
    ),
  get_auction: (env, args) =>
    encodeAuctionData(getAuction(env, readU32(arg(env, args, 0)), readAddress(arg(env, args, 1)))),
  del_auction: (env, args) => {
    deleteStaleAuction(env, readU32(arg(env, args, 0)), readAddress(arg(env, args, 1)));
    return VOID;
  },
  get_config: (env) => encodePoolConfig(new PoolStorage(env).config()),
  get_admin: (env) => scAddress(new PoolStorage(env).admin()),
  get_reserve_list: (env) => xdr.ScVal.scvVec(new PoolStorage(env).reserveList().map(scAddress)),
  get_reserve: (env, args) => {
    const reserve = new PoolState(env).loadReserve(readAddress(arg(env, args, 0)), false);
    return encodeReserve(reserve);
  },
  get_positions: (env, args) => encodePositions(new PoolStorage(env).positions(readAddress(arg(env, args, 0)))),
};

export const blendPoolContract: NativeContract = {
  invoke(env: ContractEnv, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    const handler = Object.prototype.hasOwnProperty.call(HANDLERS, fn) ? HANDLERS[fn] : undefined;
    if (!handler) return env.fail(BLEND_POOL_ERROR.BadRequest, `unknown pool function ${fn}`);
    return handler(env, args);
  },
};

export const BLEND_POOL_CONTRACT = defineContractKind('blend-pool-v2', blendPoolContract);
