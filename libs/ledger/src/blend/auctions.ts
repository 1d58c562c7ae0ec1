import { Address, xdr } from '@stellar/stellar-sdk';
import { auctionKey, contractDataKey } from './layouts';
import { SCALAR_7, fixedMulCeil, fixedMulFloor } from './math';
import type { LedgerEntriesSource, PoolUser } from './pool-reader';
import { readAddress, readI128, readStruct, readU32, readVec, scAddress, scI128, scStruct, scU32 } from './scval';

/** Blend v2 pool/src/auctions/auction.rs `AuctionType`. */
export const AUCTION_TYPES = { UserLiquidation: 0, BadDebtAuction: 1, InterestAuction: 2 } as const;

/**
 * `AuctionData`: for a user liquidation, `bid` maps each liability asset to the dTokens the filler takes on and
 * `lot` each collateral asset to the bTokens the filler receives, both at 100 % of the ramp; `block` is the ledger
 * the auction starts (the ledger after `new_auction`).
 */
export interface AuctionData {
  readonly bid: ReadonlyMap<string, bigint>;
  readonly lot: ReadonlyMap<string, bigint>;
  readonly block: number;
}

/** The lot ramps up over this many ledgers, then the bid ramps down over as many (0.5 % a ledger). */
export const AUCTION_RAMP_LEDGERS = 200;
const PER_LEDGER = 50_000n; // 0.5 % with 7 decimals

/** A `Map<Address, i128>` sorted as the host sorts it (by the address's XDR: accounts before contracts). */
function scAddressI128Map(map: ReadonlyMap<string, bigint>): xdr.ScVal {
  const entries = [...map].map(([address, amount]) => ({ key: scAddress(address), amount }));
  entries.sort((a, b) => Buffer.compare(a.key.toXDR(), b.key.toXDR()));
  return xdr.ScVal.scvMap(entries.map(({ key, amount }) => new xdr.ScMapEntry({ key, val: scI128(amount) })));
}

function readAddressI128Map(value: xdr.ScVal, what: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  if (value.switch().name !== 'scvMap') throw new TypeError(`${what}: expected scvMap, got ${value.switch().name}`);
  for (const entry of value.map() ?? []) out.set(readAddress(entry.key(), `${what} key`), readI128(entry.val(), what));
  return out;
}

export function encodeAuctionData(auction: AuctionData): xdr.ScVal {
  return scStruct({
    bid: scAddressI128Map(auction.bid),
    block: scU32(auction.block),
    lot: scAddressI128Map(auction.lot),
  });
}

export function decodeAuctionData(value: xdr.ScVal): AuctionData {
  const f = readStruct(value, 'AuctionData');
  return {
    bid: readAddressI128Map(f('bid'), 'AuctionData.bid'),
    lot: readAddressI128Map(f('lot'), 'AuctionData.lot'),
    block: readU32(f('block')),
  };
}

/**
 * `scale_auction`'s modifiers (7 decimals) `ledgers` after the auction's block: the lot grows 0.5 % a ledger to
 * 100 % at 200, then the bid shrinks 0.5 % a ledger to 0 at 400. `ledgers` < 0 is an overflow in the contract.
 */
export function auctionModifiers(ledgers: number): { readonly lot: bigint; readonly bid: bigint } {
  const diff = BigInt(ledgers);
  if (diff > BigInt(AUCTION_RAMP_LEDGERS)) {
    const bid = diff < 2n * BigInt(AUCTION_RAMP_LEDGERS) ? SCALAR_7 - (diff - 200n) * PER_LEDGER : 0n;
    return { lot: SCALAR_7, bid };
  }
  return { lot: diff * PER_LEDGER, bid: SCALAR_7 };
}

export interface ScaledAuction {
  /** What a fill of `percent` at `sequence` moves (the bid rounded up, the lot down). */
  readonly filled: AuctionData;
  /** What stays in the auction; `undefined` once nothing is left (the auction is deleted). */
  readonly remaining: AuctionData | undefined;
}

/**
 * Blend v2 `scale_auction`: `percent` (1-100) of the auction, at ledger `sequence` (>= the auction's block), the
 * ramp applied to the filled part only; the remaining part keeps its unscaled amounts.
 */
export function scaleAuction(auction: AuctionData, percent: number, sequence: number): ScaledAuction {
  const { lot: lotModifier, bid: bidModifier } = auctionModifiers(sequence - auction.block);
  const share = BigInt(percent) * 100_000n;
  const scale = (book: ReadonlyMap<string, bigint>, modifier: bigint, round: typeof fixedMulCeil) => {
    const filled = new Map<string, bigint>();
    const remaining = new Map<string, bigint>();
    for (const [asset, amount] of book) {
      const base = round(amount, share, SCALAR_7);
      if (amount - base > 0n) remaining.set(asset, amount - base);
      const scaled = round(base, modifier, SCALAR_7);
      if (scaled > 0n) filled.set(asset, scaled);
    }
    return { filled, remaining };
  };
  const bid = scale(auction.bid, bidModifier, fixedMulCeil);
  const lot = scale(auction.lot, lotModifier, fixedMulFloor);
  const block = auction.block;
  const left = bid.remaining.size > 0 || lot.remaining.size > 0;
  return {
    filled: { bid: bid.filled, lot: lot.filled, block },
    remaining: left ? { bid: bid.remaining, lot: lot.remaining, block } : undefined,
  };
}

/** The `Auction(AuctionKey{user, auct_type})` entry's ledger key (temporary storage, as v2 stores auctions). */
export const auctionLedgerKey = (pool: string, user: string, auctionType = AUCTION_TYPES.UserLiquidation) =>
  contractDataKey(pool, auctionKey(user, auctionType), 'temporary');

/**
 * The user liquidation auctions of (pool, user) pairs in one `getLedgerEntries` (the source splits it by 200 keys):
 * pool -> user -> auction, only where one exists.
 */
export async function loadUserAuctions(
  ledger: LedgerEntriesSource,
  pairs: readonly PoolUser[],
): Promise<Map<string, Map<string, AuctionData>>> {
  const auctions = new Map<string, Map<string, AuctionData>>();
  if (pairs.length === 0) return auctions;
  const response = await ledger.getLedgerEntries(pairs.map(({ pool, user }) => auctionLedgerKey(pool, user)));
  for (const entry of response.entries) {
    const data = entry.val.contractData();
    const pool = Address.fromScAddress(data.contract()).toString();
    const key = readStruct(readVec(data.key(), 'Auction key')[1] ?? xdr.ScVal.scvVoid(), 'AuctionKey');
    if (readU32(key('auct_type')) !== AUCTION_TYPES.UserLiquidation) continue;
    let byUser = auctions.get(pool);
    if (!byUser) auctions.set(pool, (byUser = new Map()));
    byUser.set(readAddress(key('user')), decodeAuctionData(data.val()));
  }
  return auctions;
}
