import { xdr } from '@stellar/stellar-sdk';
import {
  AUCTION_TYPES,
  type AuctionData,
  BLEND_POOL_ERROR,
  POOL_INSTANCE_KEYS,
  type PoolConfig,
  type Positions,
  type ReserveConfig,
  type ReserveData,
  auctionKey,
  blendScVal,
  decodeAuctionData,
  decodePoolConfig,
  decodePositions,
  decodeReserveConfig,
  decodeReserveData,
  emptyPositions,
  encodeAuctionData,
  encodePoolConfig,
  encodePositions,
  encodeReserveConfig,
  encodeReserveData,
  positionsKey,
  resConfigKey,
  resDataKey,
  resListKey,
} from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';

/**
 * The pool's ledger storage, key for key as blend-contracts-v2 pool/src/storage.rs lays it out, so that the
 * unmodified blend-sdk reads it: instance Admin/Name/Backstop/BLNDTkn/Config; persistent ResList, ResConfig(asset),
 * ResData(asset), Positions(user); temporary Auction(AuctionKey{user, auct_type}). TTL bumps are the host's business
 * (it gives every write the default TTL) except an auction's, which lives as long as v2 extends it.
 */
export class PoolStorage {
  constructor(private readonly env: ContractEnv) {}

  private instance(key: string): xdr.ScVal {
    const value = this.env.get('instance', blendScVal.scSymbol(key));
    if (value === undefined) this.env.fail(BLEND_POOL_ERROR.InternalError, `pool instance storage has no ${key}`);
    return value;
  }

  setInstance(key: string, value: xdr.ScVal): void {
    this.env.set('instance', blendScVal.scSymbol(key), value);
  }

  admin(): string {
    return blendScVal.readAddress(this.instance(POOL_INSTANCE_KEYS.admin));
  }

  config(): PoolConfig {
    return decodePoolConfig(this.instance(POOL_INSTANCE_KEYS.config));
  }

  setConfig(config: PoolConfig): void {
    this.setInstance(POOL_INSTANCE_KEYS.config, encodePoolConfig(config));
  }

  reserveList(): string[] {
    const list = this.env.get('persistent', resListKey());
    return list === undefined ? [] : blendScVal.readVec(list).map((a) => blendScVal.readAddress(a));
  }

  /** `push_res_list`: appends and returns the new reserve's index (at most 30 reserves). */
  pushReserve(asset: string): number {
    const list = this.reserveList();
    if (list.length >= 30) this.env.fail(BLEND_POOL_ERROR.BadRequest, 'too many reserves');
    list.push(asset);
    this.env.set('persistent', resListKey(), xdr.ScVal.scvVec(list.map(blendScVal.scAddress)));
    return list.length - 1;
  }

  hasReserve(asset: string): boolean {
    return this.env.has('persistent', resConfigKey(asset));
  }

  reserveConfig(asset: string): ReserveConfig {
    const value = this.env.get('persistent', resConfigKey(asset));
    if (value === undefined) this.env.fail(BLEND_POOL_ERROR.BadRequest, `no reserve for ${asset}`);
    return decodeReserveConfig(value);
  }

  setReserveConfig(asset: string, config: ReserveConfig): void {
    this.env.set('persistent', resConfigKey(asset), encodeReserveConfig(config));
  }

  reserveData(asset: string): ReserveData {
    const value = this.env.get('persistent', resDataKey(asset));
    if (value === undefined) this.env.fail(BLEND_POOL_ERROR.BadRequest, `no reserve data for ${asset}`);
    return decodeReserveData(value);
  }

  setReserveData(asset: string, data: ReserveData): void {
    this.env.set('persistent', resDataKey(asset), encodeReserveData(data));
  }

  positions(user: string): Positions {
    const value = this.env.get('persistent', positionsKey(user));
    return value === undefined ? emptyPositions() : decodePositions(value);
  }

  setPositions(user: string, positions: Positions): void {
    this.env.set('persistent', positionsKey(user), encodePositions(positions));
  }

  backstop(): string {
    return blendScVal.readAddress(this.instance(POOL_INSTANCE_KEYS.backstop));
  }

  /** `has_auction` (a user liquidation unless told otherwise): a stored one blocks the user's `submit`. */
  hasLiquidationAuction(user: string, auctionType: number = AUCTION_TYPES.UserLiquidation): boolean {
    return this.env.has('temporary', auctionKey(user, auctionType));
  }

  auction(user: string, auctionType: number = AUCTION_TYPES.UserLiquidation): AuctionData | undefined {
    const value = this.env.get('temporary', auctionKey(user, auctionType));
    return value === undefined ? undefined : decodeAuctionData(value);
  }

  /** `set_auction`: temporary storage, extended to LEDGER_BUMP_SHARED (46 days of 5 s ledgers). */
  setAuction(user: string, auction: AuctionData, auctionType: number = AUCTION_TYPES.UserLiquidation): void {
    const liveUntil = this.env.ledger.sequence + AUCTION_TTL_LEDGERS;
    this.env.set('temporary', auctionKey(user, auctionType), encodeAuctionData(auction), liveUntil);
  }

  deleteAuction(user: string, auctionType: number = AUCTION_TYPES.UserLiquidation): void {
    this.env.remove('temporary', auctionKey(user, auctionType));
  }
}

const AUCTION_TTL_LEDGERS = 46 * 17_280;
