import { Injectable } from '@nestjs/common';
import { type AccountState, type BlendPool, type OraclePrices, type Positions, TokenClient } from '@rp/ledger';
import { TxbLedger } from '../ledger/txb-ledger';

/** A wallet's position in a pool as the ledger has it now, with what a build needs around it. */
export interface PositionSnapshot {
  readonly pool: BlendPool;
  readonly prices: OraclePrices;
  readonly positions: Positions;
  /** `undefined` when the wallet's account does not exist. */
  readonly account: AccountState | undefined;
  /** The wallet's balance of the tokens asked for. */
  readonly balances: ReadonlyMap<string, bigint>;
  /** Read only when asked (RESCUE): whether a user liquidation auction runs against the wallet. */
  readonly auction?: boolean;
}

/** Which balances a build needs: some known from the request, others only once the position is known. */
export interface BalancesWanted {
  readonly known: readonly string[];
  readonly fromPosition?: (pool: BlendPool, positions: Positions) => readonly string[];
  /** Read the wallet's liquidation auction too (in the same ledger call as its positions). */
  readonly auction?: boolean;
}

interface PoolAtLedger {
  readonly ledger: number;
  readonly loadedAt: number;
  readonly pool: BlendPool;
  readonly prices: OraclePrices;
}

/** A pool read is reused at most this long even if no ledger closed: its reserves are accrued to when it was read. */
const POOL_REUSE_MS = 10_000;
const MAX_POOLS = 64;

/**
 * Reads a position in as few sequential rounds as the data allows. The wallet's positions and account come in one
 * call, with the ledger they reflect, together with the balances the request names. The pool and its prices cannot
 * change without a new ledger, so the ones read at that ledger are reused; otherwise they are read again (two calls
 * and the oracle's prices), once for all the builds that need them.
 */
@Injectable()
export class PositionReader {
  private readonly pools = new Map<string, Promise<PoolAtLedger>>();

  constructor(private readonly ledger: TxbLedger) {}

  async read(poolId: string, wallet: string, wanted: BalancesWanted): Promise<PositionSnapshot> {
    const reader = await this.ledger.poolReader();
    const [held, knownBalances] = await Promise.all([
      reader.loadWallet(poolId, wallet, wanted.auction === true),
      this.balances(wallet, wanted.known),
    ]);
    const { pool, prices } = await this.poolAt(poolId, held.latestLedger);
    const more = (wanted.fromPosition?.(pool, held.positions) ?? []).filter((token) => !knownBalances.has(token));
    const balances =
      more.length > 0 ? new Map([...knownBalances, ...(await this.balances(wallet, more))]) : knownBalances;
    return {
      pool,
      prices,
      positions: held.positions,
      account: held.account,
      balances,
      ...(held.auction !== undefined && { auction: held.auction }),
    };
  }

  async balances(wallet: string, tokens: readonly string[]): Promise<Map<string, bigint>> {
    const rpc = this.ledger.rpc();
    const unique = [...new Set(tokens)];
    const amounts = await Promise.all(unique.map((token) => new TokenClient(rpc, token).balance(wallet)));
    return new Map(unique.map((token, i) => [token, amounts[i]]));
  }

  /** What `spender` (the pool) may pull from the wallet with `transfer_from`, per token. */
  async allowances(wallet: string, spender: string, tokens: readonly string[]): Promise<Map<string, bigint>> {
    const rpc = this.ledger.rpc();
    const amounts = await Promise.all(tokens.map((token) => new TokenClient(rpc, token).allowance(wallet, spender)));
    return new Map(tokens.map((token, i) => [token, amounts[i]]));
  }

  async latestLedger(): Promise<number> {
    return (await this.ledger.rpc().getLatestLedger()).sequence;
  }

  private async poolAt(poolId: string, ledger: number): Promise<PoolAtLedger> {
    const cached = this.pools.get(poolId);
    if (cached) {
      const found = await cached.catch(() => undefined);
      if (found && found.ledger === ledger && Date.now() - found.loadedAt < POOL_REUSE_MS) return found;
      // Another build may already be reading it again.
      if (this.pools.get(poolId) !== cached) return this.poolAt(poolId, ledger);
    }
    const loading = this.loadPool(poolId, ledger);
    // A handful of pools in practice; a caller naming many cannot make the map grow without bound.
    if (!this.pools.has(poolId) && this.pools.size >= MAX_POOLS)
      this.pools.delete(this.pools.keys().next().value as string);
    this.pools.set(poolId, loading);
    loading.catch(() => {
      if (this.pools.get(poolId) === loading) this.pools.delete(poolId);
    });
    return loading;
  }

  private async loadPool(poolId: string, ledger: number): Promise<PoolAtLedger> {
    const reader = await this.ledger.poolReader();
    const pool = await reader.loadPool(poolId);
    return { ledger, loadedAt: Date.now(), pool, prices: await reader.loadPrices(pool) };
  }
}
