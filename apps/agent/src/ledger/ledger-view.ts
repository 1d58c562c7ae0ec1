import type { LedgerNetwork } from '@rp/contracts';
import {
  type AccountBalance,
  BLEND_POOL_CALL_ERRORS,
  type BlendPool,
  BlendPoolReader,
  CloseFeeReader,
  LedgerRpc,
  type OraclePrices,
  type Positions,
  SwapReceiverClient,
  TokenClient,
  type UnwindPosition,
  isRescueRefusal,
  isUnwindRouteRefusal,
  missingApproval,
  networkFromPassphrase,
  planRescue,
  poolActivitySince,
  poolSubmitOperation,
  prepareInvocation,
  readAccountBalance,
  routeUnwind,
  summarizePositions,
  unwindOperation,
  withAuctionDeleted,
} from '@rp/ledger';
import type { CloseStrategy } from '../config/agent.config';
import type { SnapshotPosition } from '../store/agent-store';
import { type BuiltClose, CloseRefusedError } from '../close/built-close';
import { LedgerCatchUp } from './ledger-catch-up';

/** A pool read at one ledger: the pool's own reserves (accrued) and its oracle prices. */
/** Refusals of a partial unwind after which the agent closes the whole position instead. */
const PARTIAL_FALLS_BACK: ReadonlySet<string> = new Set(['min-collateral', 'target-unreachable']);

export interface PoolAtLedger {
  readonly pool: BlendPool;
  readonly prices: OraclePrices;
  readonly ledger: number;
}

export interface LedgerPosition {
  readonly position: SnapshotPosition;
  readonly pool: PoolAtLedger;
}

/** Seconds a transaction the agent builds itself stays valid (txb's proposals live as long). */
const OWN_BUILD_LIFETIME_S = 300;
/** Ledgers an approval the agent makes lasts: three build lifetimes of 5 s ledgers. */
const APPROVAL_LEDGERS = Math.ceil((3 * OWN_BUILD_LIFETIME_S) / 5);

const number = (value: bigint, decimals: number): number => Number(value) / 10 ** decimals;

/**
 * The ledger as the agent reads it itself: its account (sequence, fee balance), its positions with Blend's math
 * (degraded mode, and the prices of every endangered pool in any mode), and closes built without the service
 * through the same UNWIND routing txb uses (`routeUnwind`).
 */
export class LedgerView {
  readonly rpc: LedgerRpc;
  /** The inclusion fee the network asks of a close now (`getFeeStats`, read at most once a second). */
  readonly fees: CloseFeeReader;
  /** What the agent reads of the ledgers it missed (an RPC outage, a move to another endpoint) before deciding. */
  readonly catchUp: LedgerCatchUp;
  private reader?: Promise<{ reader: BlendPoolReader; passphrase: string; network: LedgerNetwork }>;
  private readonly pools = new Map<string, Promise<PoolAtLedger>>();

  constructor(
    rpcUrl: string,
    private readonly wallet: string,
    private readonly receiver: string | undefined,
  ) {
    // `rpcUrl` may list several endpoints (CONTRACT_RPC_URL): a call that fails on one is tried on the next.
    this.rpc = new LedgerRpc({ rpcUrl, timeoutMs: 5000, maxAttempts: 2 });
    this.fees = new CloseFeeReader(this.rpc);
    this.catchUp = new LedgerCatchUp(
      {
        getLatestLedger: () => this.rpc.getLatestLedger(),
        originInUse: () => this.rpc.originInUse(),
        poolActivitySince: (pools, startLedger) => poolActivitySince(this.rpc, pools, startLedger),
      },
      wallet,
    );
  }

  async passphrase(): Promise<string> {
    return (await this.context()).passphrase;
  }

  async network(): Promise<LedgerNetwork> {
    return (await this.context()).network;
  }

  account(): Promise<AccountBalance | undefined> {
    return readAccountBalance(this.rpc, this.wallet);
  }

  /** The pool and its prices at the latest ledger (reused while no ledger has closed). */
  async poolAt(poolId: string, ledger?: number): Promise<PoolAtLedger> {
    const latest = ledger ?? (await this.rpc.getLatestLedger()).sequence;
    const cached = this.pools.get(poolId);
    if (cached) {
      const found = await cached.catch(() => undefined);
      if (found && found.ledger === latest) return found;
    }
    const loading = (async () => {
      const { reader } = await this.context();
      const pool = await reader.loadPool(poolId);
      return { pool, prices: await reader.loadPrices(pool), ledger: latest };
    })();
    this.pools.set(poolId, loading);
    loading.catch(() => this.pools.delete(poolId));
    return loading;
  }

  /** The wallet's position in each pool where it has collateral or debt, evaluated with Blend's math. */
  async positions(poolIds: readonly string[]): Promise<LedgerPosition[]> {
    const found = await Promise.all(poolIds.map((poolId) => this.position(poolId)));
    return found.filter((entry): entry is LedgerPosition => entry !== undefined);
  }

  async position(poolId: string): Promise<LedgerPosition | undefined> {
    const { reader } = await this.context();
    // The auction against the wallet comes in the same call: degraded mode sees it the ledger it appears.
    const held = await reader.loadWallet(poolId, this.wallet, true);
    if (held.positions.collateral.size === 0 && held.positions.liabilities.size === 0) return undefined;
    const pool = await this.poolAt(poolId, held.latestLedger);
    const position = this.summarize(poolId, pool, held.positions);
    return { position: held.auction ? { ...position, auction: true } : position, pool };
  }

  /** Whether a user liquidation auction runs against the wallet in the pool (the pool's Auction entry). */
  async auction(poolId: string): Promise<boolean> {
    const { reader } = await this.context();
    return (await reader.loadWallet(poolId, this.wallet, true)).auction === true;
  }

  /** What the signing rule checks a close of `poolId` against: the position, the account's sequence, the ledger. */
  async signingRead(
    poolId: string,
  ): Promise<{ position: UnwindPosition; accountSequence: string; latestLedger: number; auction: boolean }> {
    const { reader } = await this.context();
    const held = await reader.loadWallet(poolId, this.wallet, true);
    if (!held.account) throw new CloseRefusedError('ACCOUNT_NOT_FOUND', 'the wallet has no ledger account');
    const { pool, prices } = await this.poolAt(poolId, held.latestLedger);
    return {
      position: {
        reserves: pool.reserves,
        positions: held.positions,
        prices,
        minCollateral: pool.config.minCollateral,
      },
      accountSequence: held.account.sequence,
      latestLedger: held.latestLedger,
      auction: held.auction === true,
    };
  }

  /** Oracle prices of a pool as decimal strings, for the audit snapshot. */
  static pricesOf(pool: PoolAtLedger): Record<string, string> {
    const prices: Record<string, string> = {};
    for (const [asset, data] of pool.prices.prices) prices[asset] = String(number(data.price, pool.prices.decimals));
    return prices;
  }

  /**
   * The close built here (degraded mode): UNWIND of the pool, or a partial unwind to `target` for `deleverage`,
   * routed as txb routes it; the approval first when settlement would pull more than the wallet approved.
   */
  async buildClose(poolId: string, strategy: CloseStrategy, target: number, slippageBps: number): Promise<BuiltClose> {
    const { reader, network } = await this.context();
    const held = await reader.loadWallet(poolId, this.wallet, true);
    if (!held.account) throw new CloseRefusedError('ACCOUNT_NOT_FOUND', 'the wallet has no ledger account');
    const { pool, prices } = await this.poolAt(poolId, held.latestLedger);
    const tokens = pool.reserveList.filter(
      (_asset, index) => held.positions.collateral.has(index) || held.positions.liabilities.has(index),
    );
    const balances = await this.balances(tokens);
    const route = (targetHealthFactor: number | undefined) =>
      routeUnwind(
        { reserves: pool.reserves, positions: held.positions, prices, minCollateral: pool.config.minCollateral },
        { balances },
        {
          slippageBps,
          targetHealthFactor,
          receiver: this.receiver ? new SwapReceiverClient(this.rpc, this.receiver) : undefined,
        },
      );
    let plan = await route(strategy === 'deleverage' ? target : undefined);
    // A deleverage that cannot reach its target, or would leave debt under the pool's minimum collateral, closes the
    // whole position instead: an endangered position is not left open for want of a partial close (docs/agent.md).
    if (isUnwindRouteRefusal(plan) && PARTIAL_FALLS_BACK.has(plan.refused)) plan = await route(undefined);
    if (isUnwindRouteRefusal(plan))
      throw new CloseRefusedError(plan.refused.toUpperCase(), JSON.stringify(plan, bigints));
    const validUntil = new Date(Date.now() + OWN_BUILD_LIFETIME_S * 1000);
    const pulls = [...plan.pulls.keys()];
    const allowances = new Map(
      await Promise.all(
        pulls.map(
          async (token) => [token, await new TokenClient(this.rpc, token).allowance(this.wallet, poolId)] as const,
        ),
      ),
    );
    const approval = missingApproval(plan, allowances, slippageBps);
    const operation = approval
      ? new TokenClient(this.rpc, approval.token).approveInvocation(
          this.wallet,
          poolId,
          approval.amount,
          held.latestLedger + APPROVAL_LEDGERS,
        )
      : unwindOperation(poolId, this.wallet, withAuctionDeleted(plan, this.wallet, held.auction));
    const prepared = await prepareInvocation(this.rpc, {
      source: held.account,
      operation,
      validUntil,
      network,
      errorNames: BLEND_POOL_CALL_ERRORS,
    });
    return {
      unsignedXdr: prepared.transactionXdr,
      route: approval ? 'approve' : plan.route,
      builtBy: 'ledger',
    };
  }

  /**
   * The rescue built here (ledger mode), as txb builds RESCUE: repay (else supply collateral) just enough to reach
   * `target`, then DeleteLiquidationAuction, in one `submit`. `RESCUE_NOT_POSSIBLE` when the funds fall short.
   */
  async buildRescue(poolId: string, target: number, slippageBps: number): Promise<BuiltClose> {
    const { reader, network } = await this.context();
    const held = await reader.loadWallet(poolId, this.wallet, true);
    if (!held.account) throw new CloseRefusedError('ACCOUNT_NOT_FOUND', 'the wallet has no ledger account');
    if (!held.auction)
      throw new CloseRefusedError('AUCTION_NOT_FOUND', 'no liquidation auction runs against the wallet');
    const { pool, prices } = await this.poolAt(poolId, held.latestLedger);
    const plan = planRescue(
      { reserves: pool.reserves, positions: held.positions, prices, minCollateral: pool.config.minCollateral },
      { balances: await this.balances(pool.reserveList) },
      { wallet: this.wallet, slippageBps, target: BigInt(Math.round(target * 1e7)), poolStatus: pool.config.status },
    );
    if (isRescueRefusal(plan)) throw new CloseRefusedError('RESCUE_NOT_POSSIBLE', JSON.stringify(plan, bigints));
    const prepared = await prepareInvocation(this.rpc, {
      source: held.account,
      operation: poolSubmitOperation(poolId, this.wallet, plan.requests),
      validUntil: new Date(Date.now() + OWN_BUILD_LIFETIME_S * 1000),
      network,
      errorNames: BLEND_POOL_CALL_ERRORS,
    });
    return { unsignedXdr: prepared.transactionXdr, route: 'rescue', builtBy: 'ledger' };
  }

  private summarize(poolId: string, at: PoolAtLedger, positions: Positions): SnapshotPosition {
    const summary = summarizePositions(at.pool.reserves, at.prices, positions);
    return {
      poolAddress: poolId,
      healthFactor: summary.healthFactor === null ? null : number(summary.healthFactor, 7),
      riskLevel: summary.riskLevel,
      collateralValueUsd: number(summary.collateralValue, summary.valueDecimals),
      liabilityValueUsd: number(summary.liabilityValue, summary.valueDecimals),
    };
  }

  private async balances(tokens: readonly string[]): Promise<Map<string, bigint>> {
    const amounts = await Promise.all(tokens.map((token) => new TokenClient(this.rpc, token).balance(this.wallet)));
    return new Map(tokens.map((token, i) => [token, amounts[i]]));
  }

  private context() {
    this.reader ??= this.rpc.networkPassphrase().then(
      (passphrase) => ({
        passphrase,
        network: networkFromPassphrase(passphrase),
        reader: new BlendPoolReader({ ledger: this.rpc, simulator: this.rpc, networkPassphrase: passphrase }),
      }),
      (error: unknown) => {
        this.reader = undefined;
        throw error;
      },
    );
    return this.reader;
  }
}

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
