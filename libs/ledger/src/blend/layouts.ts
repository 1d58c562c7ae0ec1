import { Address, xdr } from '@stellar/stellar-sdk';
import {
  readAddress,
  readBool,
  readEnum,
  readI128,
  readStruct,
  readSymbol,
  readU32,
  readU32I128Map,
  readU64,
  scAddress,
  scBool,
  scEnum,
  scI128,
  scStruct,
  scSymbol,
  scU32,
  scU32I128Map,
  scU64,
} from './scval';

/**
 * Blend v2 pool storage values and keys (blend-contracts-v2 pool/src/storage.rs, pool/src/pool/{user,reserve,
 * actions}.rs), encoded exactly as soroban-sdk does, so that the blend-sdk and the real contract read them.
 * u32 fields are numbers; i128 and u64 fields are bigints.
 */

/** `PoolConfig`, instance key `Config`. Status: 0 admin-active, 1 active, 2 admin-on-ice, 3 on-ice,
 * 4 admin-frozen, 5 frozen, 6 setup. */
export interface PoolConfig {
  readonly oracle: string;
  readonly minCollateral: bigint;
  /** Backstop take rate on interest, 7 decimals. */
  readonly bstopRate: number;
  readonly status: number;
  readonly maxPositions: number;
}

/** `ReserveConfig` (v2 adds `supply_cap` and `enabled`); factors and rates have 7 decimals. */
export interface ReserveConfig {
  readonly index: number;
  readonly decimals: number;
  readonly cFactor: number;
  readonly lFactor: number;
  readonly util: number;
  readonly maxUtil: number;
  readonly rBase: number;
  readonly rOne: number;
  readonly rTwo: number;
  readonly rThree: number;
  readonly reactivity: number;
  readonly supplyCap: bigint;
  readonly enabled: boolean;
}

/** `ReserveData`: rates have 12 decimals, `irMod` 7, supplies are token amounts, `lastTime` unix seconds. */
export interface ReserveData {
  readonly dRate: bigint;
  readonly bRate: bigint;
  readonly irMod: bigint;
  readonly bSupply: bigint;
  readonly dSupply: bigint;
  readonly backstopCredit: bigint;
  readonly lastTime: bigint;
}

/** A user's positions: reserve index -> dTokens (liabilities) or bTokens (collateral, supply). */
export interface Positions {
  readonly liabilities: ReadonlyMap<number, bigint>;
  readonly collateral: ReadonlyMap<number, bigint>;
  readonly supply: ReadonlyMap<number, bigint>;
}

export const REQUEST_TYPES = {
  Supply: 0,
  Withdraw: 1,
  SupplyCollateral: 2,
  WithdrawCollateral: 3,
  Borrow: 4,
  Repay: 5,
  FillUserLiquidationAuction: 6,
  FillBadDebtAuction: 7,
  FillInterestAuction: 8,
  DeleteLiquidationAuction: 9,
} as const;
export type RequestTypeName = keyof typeof REQUEST_TYPES;

/** `Request`: `address` is the reserve asset (or the liquidatee for auction fills). */
export interface Request {
  readonly requestType: number;
  readonly address: string;
  readonly amount: bigint;
}

/** `FlashLoan`: `contract` is the receiver whose `exec_op` the pool calls. */
export interface FlashLoan {
  readonly contract: string;
  readonly asset: string;
  readonly amount: bigint;
}

/** The `Reserve` struct `get_reserve` returns; `scalar` is 10^decimals. */
export interface Reserve {
  readonly asset: string;
  readonly config: ReserveConfig;
  readonly data: ReserveData;
  readonly scalar: bigint;
}

/** SEP-40 `Asset` and `PriceData`. */
export type OracleAsset = { readonly stellar: string } | { readonly other: string };
export interface PriceData {
  readonly price: bigint;
  readonly timestamp: bigint;
}

export const emptyPositions = (): Positions => ({ liabilities: new Map(), collateral: new Map(), supply: new Map() });

// ---------- values ----------

export function encodePoolConfig(c: PoolConfig): xdr.ScVal {
  return scStruct({
    bstop_rate: scU32(c.bstopRate),
    max_positions: scU32(c.maxPositions),
    min_collateral: scI128(c.minCollateral),
    oracle: scAddress(c.oracle),
    status: scU32(c.status),
  });
}

export function decodePoolConfig(v: xdr.ScVal): PoolConfig {
  const f = readStruct(v, 'PoolConfig');
  return {
    oracle: readAddress(f('oracle')),
    minCollateral: readI128(f('min_collateral')),
    bstopRate: readU32(f('bstop_rate')),
    status: readU32(f('status')),
    maxPositions: readU32(f('max_positions')),
  };
}

export function encodeReserveConfig(c: ReserveConfig): xdr.ScVal {
  return scStruct({
    c_factor: scU32(c.cFactor),
    decimals: scU32(c.decimals),
    enabled: scBool(c.enabled),
    index: scU32(c.index),
    l_factor: scU32(c.lFactor),
    max_util: scU32(c.maxUtil),
    r_base: scU32(c.rBase),
    r_one: scU32(c.rOne),
    r_three: scU32(c.rThree),
    r_two: scU32(c.rTwo),
    reactivity: scU32(c.reactivity),
    supply_cap: scI128(c.supplyCap),
    util: scU32(c.util),
  });
}

export function decodeReserveConfig(v: xdr.ScVal): ReserveConfig {
  const f = readStruct(v, 'ReserveConfig');
  const u = (name: string): number => readU32(f(name), `ReserveConfig.${name}`);
  return {
    index: u('index'),
    decimals: u('decimals'),
    cFactor: u('c_factor'),
    lFactor: u('l_factor'),
    util: u('util'),
    maxUtil: u('max_util'),
    rBase: u('r_base'),
    rOne: u('r_one'),
    rTwo: u('r_two'),
    rThree: u('r_three'),
    reactivity: u('reactivity'),
    supplyCap: readI128(f('supply_cap')),
    enabled: readBool(f('enabled')),
  };
}

export function encodeReserveData(d: ReserveData): xdr.ScVal {
  return scStruct({
    b_rate: scI128(d.bRate),
    b_supply: scI128(d.bSupply),
    backstop_credit: scI128(d.backstopCredit),
    d_rate: scI128(d.dRate),
    d_supply: scI128(d.dSupply),
    ir_mod: scI128(d.irMod),
    last_time: scU64(d.lastTime),
  });
}

export function decodeReserveData(v: xdr.ScVal): ReserveData {
  const f = readStruct(v, 'ReserveData');
  return {
    dRate: readI128(f('d_rate')),
    bRate: readI128(f('b_rate')),
    irMod: readI128(f('ir_mod')),
    bSupply: readI128(f('b_supply')),
    dSupply: readI128(f('d_supply')),
    backstopCredit: readI128(f('backstop_credit')),
    lastTime: readU64(f('last_time')),
  };
}

export function encodePositions(p: Positions): xdr.ScVal {
  return scStruct({
    collateral: scU32I128Map(p.collateral),
    liabilities: scU32I128Map(p.liabilities),
    supply: scU32I128Map(p.supply),
  });
}

export function decodePositions(v: xdr.ScVal): Positions {
  const f = readStruct(v, 'Positions');
  return {
    liabilities: readU32I128Map(f('liabilities'), 'Positions.liabilities'),
    collateral: readU32I128Map(f('collateral'), 'Positions.collateral'),
    supply: readU32I128Map(f('supply'), 'Positions.supply'),
  };
}

export function encodeRequest(r: Request): xdr.ScVal {
  return scStruct({ address: scAddress(r.address), amount: scI128(r.amount), request_type: scU32(r.requestType) });
}

export function decodeRequest(v: xdr.ScVal): Request {
  const f = readStruct(v, 'Request');
  return { requestType: readU32(f('request_type')), address: readAddress(f('address')), amount: readI128(f('amount')) };
}

export function encodeFlashLoan(l: FlashLoan): xdr.ScVal {
  return scStruct({ amount: scI128(l.amount), asset: scAddress(l.asset), contract: scAddress(l.contract) });
}

export function decodeFlashLoan(v: xdr.ScVal): FlashLoan {
  const f = readStruct(v, 'FlashLoan');
  return { contract: readAddress(f('contract')), asset: readAddress(f('asset')), amount: readI128(f('amount')) };
}

export function encodeReserve(r: Reserve): xdr.ScVal {
  return scStruct({
    asset: scAddress(r.asset),
    config: encodeReserveConfig(r.config),
    data: encodeReserveData(r.data),
    scalar: scI128(r.scalar),
  });
}

export function decodeReserve(v: xdr.ScVal): Reserve {
  const f = readStruct(v, 'Reserve');
  return {
    asset: readAddress(f('asset')),
    config: decodeReserveConfig(f('config')),
    data: decodeReserveData(f('data')),
    scalar: readI128(f('scalar')),
  };
}

export function encodeOracleAsset(a: OracleAsset): xdr.ScVal {
  return 'stellar' in a ? scEnum('Stellar', scAddress(a.stellar)) : scEnum('Other', scSymbol(a.other));
}

export function decodeOracleAsset(v: xdr.ScVal): OracleAsset {
  const { variant, fields } = readEnum(v, 'Asset');
  const [field] = fields;
  if (field !== undefined && variant === 'Stellar') return { stellar: readAddress(field) };
  if (field !== undefined && variant === 'Other') return { other: readSymbol(field) };
  throw new TypeError(`Asset: unknown variant ${variant}`);
}

export function encodePriceData(p: PriceData): xdr.ScVal {
  return scStruct({ price: scI128(p.price), timestamp: scU64(p.timestamp) });
}

export function decodePriceData(v: xdr.ScVal): PriceData {
  const f = readStruct(v, 'PriceData');
  return { price: readI128(f('price')), timestamp: readU64(f('timestamp')) };
}

// ---------- keys ----------

/** Instance storage keys (symbols). No `IsInit`: v2 initializes in `__constructor`. */
export const POOL_INSTANCE_KEYS = {
  admin: 'Admin',
  name: 'Name',
  backstop: 'Backstop',
  blndToken: 'BLNDTkn',
  config: 'Config',
} as const;

/** Persistent `ResList: Vec<Address>` in reserve-index order. */
export const resListKey = (): xdr.ScVal => scSymbol('ResList');
export const resConfigKey = (asset: string): xdr.ScVal => scEnum('ResConfig', scAddress(asset));
export const resDataKey = (asset: string): xdr.ScVal => scEnum('ResData', scAddress(asset));
export const positionsKey = (user: string): xdr.ScVal => scEnum('Positions', scAddress(user));
/** Temporary `Auction(AuctionKey{user, auct_type})`: an auction's `AuctionData` (see auctions.ts). */
export const auctionKey = (user: string, auctionType: number): xdr.ScVal =>
  scEnum('Auction', scStruct({ auct_type: scU32(auctionType), user: scAddress(user) }));

export function contractDataKey(
  contract: string,
  key: xdr.ScVal,
  durability: 'persistent' | 'temporary' = 'persistent',
): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: new Address(contract).toScAddress(),
      key,
      durability:
        durability === 'persistent' ? xdr.ContractDataDurability.persistent() : xdr.ContractDataDurability.temporary(),
    }),
  );
}

export const contractInstanceKey = (contract: string): xdr.LedgerKey =>
  contractDataKey(contract, xdr.ScVal.scvLedgerKeyContractInstance());
