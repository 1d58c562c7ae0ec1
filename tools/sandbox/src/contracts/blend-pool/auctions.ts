import { xdr } from '@stellar/stellar-sdk';
import {
  AUCTION_TYPES,
  type AuctionData,
  BLEND_POOL_ERROR,
  type Positions,
  blendScVal,
  encodeAuctionData,
  fixedDivCeil,
  fixedDivFloor,
  fixedMulCeil,
  fixedMulFloor,
  isHealthFactorOver,
  isHealthFactorUnder,
  positionData,
  scaleAuction,
} from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';
import { HostError } from '../../ledger/host/host-error';
import { PoolState } from './pool-state';
import { PoolStorage } from './storage';
import { UserState } from './user-state';

const { scAddress, scI128, scSymbol, scU32 } = blendScVal;

/** A liquidation must leave the user between these health factors (7 decimals), `create_user_liq_auction_data`. */
const MAX_HF_AFTER = 11_500_000n;
const MIN_HF_AFTER = 10_300_000n;

/** Rust's overflow check (`overflow-checks = true`) or `unwrap_optimized` on None: the wasm traps. */
function trap(detail: string): never {
  throw HostError.of('WasmVm', 'InvalidAction', detail);
}

function totals(pool: PoolState, positions: Positions) {
  const reserves = pool.storage.reserveList().map((asset) => pool.loadReserve(asset, false));
  return positionData(reserves, positions, (asset) => pool.loadPrice(asset), pool.loadPriceDecimals());
}

/** Events as pool/src/events.rs publishes them: topics (name, auction_type, user). */
function emitAuctionEvent(env: ContractEnv, name: string, auctionType: number, user: string, data: xdr.ScVal): void {
  env.emit([scSymbol(name), scU32(auctionType), scAddress(user)], data);
}

export interface NewAuctionArgs {
  readonly auctionType: number;
  readonly user: string;
  readonly bid: readonly string[];
  readonly lot: readonly string[];
  readonly percent: number;
}

/**
 * `new_auction` (pool/src/auctions/auction.rs `create_auction`): user liquidations only; bad debt and interest
 * auctions are not modelled (BadRequest). Stores the auction and emits `new_auction` (percent, auction data).
 */
export function newAuction(env: ContractEnv, args: NewAuctionArgs): AuctionData {
  for (const list of [args.bid, args.lot]) {
    if (new Set(list).size !== list.length) env.fail(BLEND_POOL_ERROR.BadRequest, 'repeated address');
  }
  if (args.auctionType !== AUCTION_TYPES.UserLiquidation) {
    env.fail(BLEND_POOL_ERROR.BadRequest, 'the sandbox models user liquidation auctions only');
  }
  const auction = userLiquidationAuction(env, args.user, args.bid, args.lot, args.percent);
  new PoolStorage(env).setAuction(args.user, auction);
  const data = xdr.ScVal.scvVec([scU32(args.percent), encodeAuctionData(auction)]);
  emitAuctionEvent(env, 'new_auction', args.auctionType, args.user, data);
  return auction;
}

/** `create_user_liq_auction_data`: the quote for `percent` of the user's position, sized as v2 sizes it. */
function userLiquidationAuction(
  env: ContractEnv,
  user: string,
  bid: readonly string[],
  lot: readonly string[],
  percent: number,
): AuctionData {
  const pool = new PoolState(env);
  if (user === env.address || user === pool.storage.backstop()) env.fail(BLEND_POOL_ERROR.InvalidLiquidation);
  if (pool.storage.hasLiquidationAuction(user)) env.fail(BLEND_POOL_ERROR.AuctionInProgress);
  if (percent > 100 || percent === 0) env.fail(BLEND_POOL_ERROR.InvalidLiquidation);
  if (pool.config.maxPositions < lot.length + bid.length) env.fail(BLEND_POOL_ERROR.MaxPositionsExceeded);

  const state = new UserState(env, user, pool.storage.positions(user));
  const list = pool.storage.reserveList();
  const whole = totals(pool, state.positions);
  // Only a position whose effective liabilities exceed its effective collateral (health factor < 1) is liquidated.
  if (whole.liabilityBase <= whole.collateralBase) env.fail(BLEND_POOL_ERROR.InvalidLiquidation);

  const auctioned = {
    liabilities: new Map<number, bigint>(),
    collateral: new Map<number, bigint>(),
    supply: new Map(),
  };
  for (const asset of bid) {
    const index = pool.loadReserve(asset, false).config.index;
    const amount = state.positions.liabilities.get(index);
    if (amount === undefined) env.fail(BLEND_POOL_ERROR.InvalidBid);
    auctioned.liabilities.set(index, amount);
  }
  if (auctioned.liabilities.size === 0) env.fail(BLEND_POOL_ERROR.InvalidBid);
  for (const asset of lot) {
    const index = pool.loadReserve(asset, false).config.index;
    const amount = state.positions.collateral.get(index);
    if (amount === undefined) env.fail(BLEND_POOL_ERROR.InvalidLot);
    auctioned.collateral.set(index, amount);
  }
  if (auctioned.collateral.size === 0) env.fail(BLEND_POOL_ERROR.InvalidLot);

  const included = totals(pool, auctioned);
  const isAllCollateral = included.collateralRaw === whole.collateralRaw;
  const isFull = isAllCollateral && included.liabilityRaw === whole.liabilityRaw && percent > 95;
  const scalar = included.scalar;
  const share = (BigInt(isFull ? 95 : percent) * whole.scalar) / 100n;
  const avgCf = fixedDivFloor(included.collateralBase, included.collateralRaw, scalar);
  const avgLf = fixedDivFloor(included.liabilityBase, included.liabilityRaw, scalar);
  const incentive = fixedDivCeil(scalar - fixedDivCeil(avgCf, avgLf, scalar), 2n * scalar, scalar) + scalar;
  const withdrawn = fixedMulFloor(fixedMulFloor(included.liabilityRaw, share, scalar), incentive, scalar);
  let withdrawnShare = fixedDivCeil(withdrawn, included.collateralRaw, scalar);
  if (withdrawnShare > scalar) {
    withdrawnShare = scalar;
    // The lot must then hold every collateral of the user, or the liquidation would be a bad one.
    if (!isAllCollateral) env.fail(BLEND_POOL_ERROR.InvalidLiquidation);
  }

  const block = env.ledger.sequence + 1;
  const quote = { bid: new Map<string, bigint>(), lot: new Map<string, bigint>(), block };
  const full = { bid: new Map<string, bigint>(), lot: new Map<string, bigint>(), block };
  for (const [index, amount] of auctioned.collateral) {
    quote.lot.set(list[index], fixedMulCeil(amount, withdrawnShare, whole.scalar));
    full.lot.set(list[index], amount);
  }
  for (const [index, amount] of auctioned.liabilities) {
    quote.bid.set(list[index], fixedMulCeil(amount, share, whole.scalar));
    full.bid.set(list[index], amount);
  }
  removePositions(pool, state, quote);
  const after = totals(pool, state.positions);
  if (isFull) {
    // A user who can be liquidated to 95 % can be liquidated fully, unless even that leaves them too healthy.
    if (withdrawn < whole.collateralRaw && isHealthFactorOver(after, MAX_HF_AFTER)) {
      env.fail(BLEND_POOL_ERROR.InvalidLiqTooLarge);
    }
    return full;
  }
  if (isHealthFactorOver(after, MAX_HF_AFTER)) env.fail(BLEND_POOL_ERROR.InvalidLiqTooLarge);
  if (isHealthFactorUnder(after, MIN_HF_AFTER)) env.fail(BLEND_POOL_ERROR.InvalidLiqTooSmall);
  return quote;
}

/** `User::rm_positions`: lot bTokens out of collateral, bid dTokens out of liabilities (zero amounts skipped). */
function removePositions(pool: PoolState, user: UserState, amounts: AuctionData): void {
  for (const [asset, amount] of amounts.lot)
    if (amount > 0n) user.remove('collateral', pool.loadReserve(asset, true), amount);
  for (const [asset, amount] of amounts.bid)
    if (amount > 0n) user.remove('liabilities', pool.loadReserve(asset, true), amount);
}

function addPositions(pool: PoolState, user: UserState, amounts: AuctionData): void {
  for (const [asset, amount] of amounts.lot)
    if (amount > 0n) user.add('collateral', pool.loadReserve(asset, true), amount);
  for (const [asset, amount] of amounts.bid)
    if (amount > 0n) user.add('liabilities', pool.loadReserve(asset, true), amount);
}

/**
 * Request 6, `FillUserLiquidationAuction` (auctions::fill + fill_user_liq_auction): `percent` of the auction at
 * this ledger's point of the ramp moves from the user to the filler (the lot's bTokens into the filler's
 * collateral, the bid's dTokens into its liabilities; no tokens change hands). The rest stays in the auction; a full
 * fill deletes it and, when the user is left with debt and no collateral, hands that debt to the backstop (bad
 * debt). Emits `fill_auction` (filler, percent, filled data); the caller checks the filler's health.
 */
export function fillUserLiquidation(
  env: ContractEnv,
  pool: PoolState,
  user: string,
  filler: UserState,
  percent: bigint,
): void {
  if (user === filler.address) env.fail(BLEND_POOL_ERROR.InvalidLiquidation);
  const auction = pool.storage.auction(user);
  if (!auction) trap(`no liquidation auction for ${user}`);
  if (percent > 100n || percent === 0n) env.fail(BLEND_POOL_ERROR.BadRequest);
  if (env.ledger.sequence < auction.block) trap('attempt to subtract with overflow (the auction starts next ledger)');
  const { filled, remaining } = scaleAuction(auction, Number(percent), env.ledger.sequence);
  const liquidatee = new UserState(env, user, pool.storage.positions(user));
  removePositions(pool, liquidatee, filled);
  addPositions(pool, filler, filled);
  if (!remaining) handleBadDebt(env, pool, liquidatee);
  pool.storage.setPositions(user, liquidatee.positions);
  if (remaining) pool.storage.setAuction(user, remaining);
  else pool.storage.deleteAuction(user);
  const data = xdr.ScVal.scvVec([scAddress(filler.address), scI128(percent), encodeAuctionData(filled)]);
  emitAuctionEvent(env, 'fill_auction', AUCTION_TYPES.UserLiquidation, user, data);
}

/** `check_and_handle_user_bad_debt`: debt left without collateral moves to the backstop, one `bad_debt` event each. */
function handleBadDebt(env: ContractEnv, pool: PoolState, user: UserState): void {
  if (!user.hasLiabilities() || user.positions.collateral.size > 0) return;
  const list = pool.storage.reserveList();
  const backstopAddress = pool.storage.backstop();
  const backstop = new UserState(env, backstopAddress, pool.storage.positions(backstopAddress));
  for (const [index, dTokens] of [...user.positions.liabilities]) {
    const reserve = pool.loadReserve(list[index], true);
    backstop.add('liabilities', reserve, dTokens);
    user.remove('liabilities', reserve, dTokens);
    env.emit([scSymbol('bad_debt'), scAddress(user.address), scAddress(reserve.asset)], scI128(dTokens));
  }
  pool.storage.setPositions(backstopAddress, backstop.positions);
}

/** Request 9, `DeleteLiquidationAuction`: the user's own auction is removed (BadRequest without one). */
export function deleteLiquidation(env: ContractEnv, pool: PoolState, user: string): void {
  if (!pool.storage.hasLiquidationAuction(user)) env.fail(BLEND_POOL_ERROR.BadRequest);
  pool.storage.deleteAuction(user);
  emitAuctionEvent(env, 'delete_auction', AUCTION_TYPES.UserLiquidation, user, xdr.ScVal.scvVoid());
}

/** `del_auction` (`delete_stale_auction`): anyone may delete an auction 500 ledgers after it started. */
export function deleteStaleAuction(env: ContractEnv, auctionType: number, user: string): void {
  const storage = new PoolStorage(env);
  const auction = storage.auction(user, auctionType);
  if (!auction || auction.block + 500 > env.ledger.sequence) env.fail(BLEND_POOL_ERROR.BadRequest);
  storage.deleteAuction(user, auctionType);
  emitAuctionEvent(env, 'delete_auction', auctionType, user, xdr.ScVal.scvVoid());
}

/** `get_auction`: the stored auction (the wasm traps without one). */
export function getAuction(env: ContractEnv, auctionType: number, user: string): AuctionData {
  return new PoolStorage(env).auction(user, auctionType) ?? trap(`no auction ${auctionType} for ${user}`);
}
