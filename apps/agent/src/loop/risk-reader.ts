import type { Logger } from 'pino';
import type { LedgerView, PoolAtLedger } from '../ledger/ledger-view';
import type { MockService } from '../mock/mock-service';
import { KeyRejectedError, type ServiceClient, ServiceUnavailableError } from '../service/service-client';
import type { SnapshotPosition } from '../store/agent-store';
import type { SubscriptionKeeper } from '../subscription/subscription-keeper';

export type AgentMode = 'service' | 'degraded' | 'mock';

export interface RiskReading {
  readonly mode: AgentMode;
  readonly positions: SnapshotPosition[];
  /** Pools read from the ledger during this reading (degraded mode), reusable for prices. */
  readonly pools: ReadonlyMap<string, PoolAtLedger>;
  /** Mock mode: the played prices. */
  readonly mockPrices?: Record<string, string>;
}

/**
 * Where the positions come from: the service's risk route while the agent has a valid key and the service answers;
 * otherwise the ledger itself (degraded mode) for the pools it knows (`WATCHED_POOLS` and every pool the service
 * has named); in mock mode, the mock.
 */
export class RiskReader {
  private readonly knownPools: Set<string>;
  private warnedNoPools = false;

  constructor(
    private readonly wallet: string,
    watchedPools: readonly string[],
    private readonly ledger: LedgerView,
    private readonly service: ServiceClient,
    private readonly subscription: SubscriptionKeeper,
    private readonly mock: MockService | undefined,
    private readonly logger: Logger,
  ) {
    this.knownPools = new Set(watchedPools);
  }

  async read(): Promise<RiskReading> {
    if (this.mock) {
      const played = this.mock.risk();
      return { mode: 'mock', positions: played.positions, pools: new Map(), mockPrices: played.prices };
    }
    const apiKey = this.subscription.apiKey();
    if (apiKey) {
      try {
        const answer = await this.service.risk(apiKey, this.wallet);
        const positions = answer.positions.map((position) => ({
          poolAddress: position.poolAddress,
          healthFactor: position.healthFactor,
          riskLevel: position.riskLevel,
          collateralValueUsd: Number(position.collateralValueUsd),
          liabilityValueUsd: Number(position.liabilityValueUsd),
        }));
        for (const position of positions) this.knownPools.add(position.poolAddress);
        return { mode: 'service', positions, pools: new Map() };
      } catch (error) {
        if (error instanceof KeyRejectedError) void this.subscription.keyRejected();
        else if (!(error instanceof ServiceUnavailableError)) throw error;
        this.logger.debug({ err: (error as Error).message }, 'risk from the service unavailable');
      }
    }
    return this.fromLedger();
  }

  private async fromLedger(): Promise<RiskReading> {
    if (this.knownPools.size === 0 && !this.warnedNoPools) {
      this.warnedNoPools = true;
      this.logger.warn('degraded mode knows no pool yet: set WATCHED_POOLS to watch pools without the service');
    }
    const found = await this.ledger.positions([...this.knownPools]);
    return {
      mode: 'degraded',
      positions: found.map((entry) => entry.position),
      pools: new Map(found.map((entry) => [entry.position.poolAddress, entry.pool])),
    };
  }
}
