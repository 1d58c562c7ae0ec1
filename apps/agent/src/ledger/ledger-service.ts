import type { AccountBalance } from '@rp/ledger';
import type { Logger } from 'pino';
import type { BuiltClose } from '../close/built-close';
import type { CloseBuilder } from '../close/close-builder';
import type { NetworkFee } from '../close/presigned-cache';
import type { AgentService, BuildOptions, PoolPrices, RiskReading } from '../service/agent-service';
import { LedgerView, type PoolAtLedger } from './ledger-view';

/**
 * Degraded mode: the agent's answers from the ledger itself. Positions of the pools it knows (`WATCHED_POOLS` and
 * every pool the service has named, `know`) with Blend's math, prices from each pool's oracle, closes built here.
 * The account, the network's fee and the prices of every endangered pool come from here in service mode too.
 */
export class LedgerService implements AgentService {
  readonly mode = 'degraded';
  private readonly knownPools: Set<string>;
  private warnedNoPools = false;

  constructor(
    watchedPools: readonly string[],
    private readonly ledger: LedgerView,
    private readonly builder: CloseBuilder,
    private readonly maxCloseFeeStroops: number,
    private readonly logger: Logger,
  ) {
    this.knownPools = new Set(watchedPools);
  }

  /** A pool the service named: watched from the ledger too when the service is gone. */
  know(pool: string): void {
    this.knownPools.add(pool);
  }

  async read(): Promise<RiskReading> {
    if (this.knownPools.size === 0 && !this.warnedNoPools) {
      this.warnedNoPools = true;
      this.logger.warn('degraded mode knows no pool yet: set WATCHED_POOLS to watch pools without the service');
    }
    const found = await this.ledger.positions([...this.knownPools]);
    const pools = new Map(found.map((entry) => [entry.position.poolAddress, entry.pool]));
    return {
      mode: 'degraded',
      source: 'ledger',
      positions: found.map((entry) => entry.position),
      prices: (pool) => this.prices(pool, pools.get(pool)),
    };
  }

  /** The pool's oracle prices: `read` when this poll has read the pool already, else read now. */
  async prices(pool: string, read?: PoolAtLedger): Promise<PoolPrices> {
    try {
      const at = read ?? (await this.ledger.poolAt(pool));
      return { prices: LedgerView.pricesOf(at), ledger: at.ledger };
    } catch (error) {
      this.logger.warn({ pool, err: (error as Error).message }, 'could not read the pool prices');
      return { prices: {}, ledger: null };
    }
  }

  /**
   * The account, read first at every poll (in service mode too), so the ledgers missed since the last poll (an RPC
   * outage, a move to another endpoint) are caught up with here, before the agent reads the positions and decides.
   */
  async account(): Promise<AccountBalance | undefined> {
    const missed = await this.ledger.catchUp.beforeDecision([...this.knownPools]);
    if (missed) {
      this.logger.info({ ...missed, endpoint: this.ledger.rpc.originInUse() }, 'read the ledgers missed during the RPC outage');
    }
    return this.ledger.account();
  }

  async networkFee(): Promise<NetworkFee> {
    return { ask: await this.ledger.fees.ask(), maxTotalFee: BigInt(this.maxCloseFeeStroops) };
  }

  build(pool: string, options: BuildOptions = {}): Promise<BuiltClose> {
    return options.rescue ? this.builder.buildRescue(pool) : this.builder.build(pool);
  }

  /** Whether the ledger shows an auction against the wallet in the pool (service mode asks for a wallet under 1.0). */
  auction(pool: string): Promise<boolean> {
    return this.ledger.auction(pool);
  }
}
