import type { AccountBalance } from '@rp/ledger';
import type { Logger } from 'pino';
import { type BuiltClose, CloseRefusedError } from '../close/built-close';
import type { CloseBuilder } from '../close/close-builder';
import type { NetworkFee } from '../close/presigned-cache';
import type { AgentConfig } from '../config/agent.config';
import type { LedgerService } from '../ledger/ledger-service';
import type { Subscription } from '../subscription/subscription';
import { RescueTarget } from '../close/rescue-target';
import type { AgentService, BuildOptions, RiskReading } from './agent-service';
import { KeyRejectedError, type ServiceClient, ServiceRefusedError, ServiceUnavailableError } from './service-client';

/**
 * Service mode: the risk route and txb's builds (UNWIND, with `targetHealthFactor` for `deleverage`) through the
 * gateway with the agent's key. While the agent has no valid key or the service does not answer usefully, the
 * ledger answers instead (`LedgerService`: degraded mode) and the next call asks the service again; a refused key
 * is told to the subscription. txb refusing a close (no position, target reached...) is `CloseRefusedError`.
 */
export class GatewayService implements AgentService {
  readonly mode = 'service';

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: string,
    private readonly client: ServiceClient,
    private readonly subscription: Subscription,
    private readonly ledger: LedgerService,
    private readonly builder: CloseBuilder,
    private readonly logger: Logger,
    private readonly rescueTarget: RescueTarget = new RescueTarget(),
  ) {}

  async read(): Promise<RiskReading> {
    const apiKey = this.subscription.apiKey();
    if (apiKey) {
      try {
        const answer = await this.client.risk(apiKey, this.wallet);
        this.rescueTarget.follow(answer.levels);
        const positions = await Promise.all(
          answer.positions.map(async (position) => ({
            poolAddress: position.poolAddress,
            healthFactor: position.healthFactor,
            riskLevel: position.riskLevel,
            collateralValueUsd: Number(position.collateralValueUsd),
            liabilityValueUsd: Number(position.liabilityValueUsd),
            ...((await this.auctionAgainst(position)) && { auction: true }),
          })),
        );
        for (const position of positions) this.ledger.know(position.poolAddress);
        return { mode: 'service', source: 'service', positions, prices: (pool) => this.ledger.prices(pool) };
      } catch (error) {
        this.unavailable(error);
        this.logger.debug({ err: (error as Error).message }, 'risk from the service unavailable');
      }
    }
    return this.ledger.read();
  }

  account(): Promise<AccountBalance | undefined> {
    return this.ledger.account();
  }

  networkFee(): Promise<NetworkFee> {
    return this.ledger.networkFee();
  }

  async build(pool: string, options: BuildOptions = {}): Promise<BuiltClose> {
    const apiKey = options.ledgerOnly ? undefined : this.subscription.apiKey();
    if (apiKey) {
      try {
        const partial = !options.rescue && this.config.CLOSE_STRATEGY === 'deleverage';
        const ask = (targetHealthFactor: number | undefined) =>
          this.client.build(apiKey, {
            walletAddress: this.wallet,
            poolAddress: pool,
            slippageBps: this.config.SLIPPAGE,
            ...(options.rescue && { action: 'RESCUE' as const }),
            ...(targetHealthFactor !== undefined && { targetHealthFactor }),
          });
        const target = options.rescue
          ? this.rescueTarget.value
          : partial
            ? this.config.TARGET_HEALTH_FACTOR
            : undefined;
        // A deleverage txb cannot build (UNWIND_NOT_POSSIBLE: target unreachable, or under the pool's minimum
        // collateral) closes the whole position instead, as the ledger build does.
        const answer = await ask(target).catch((error: unknown) => {
          if (partial && error instanceof ServiceRefusedError && error.code === 'UNWIND_NOT_POSSIBLE')
            return ask(undefined);
          throw error;
        });
        return await this.builder.priced({
          unsignedXdr: answer.transaction.transactionXdr,
          route: answer.proposal.metadata.route ?? 'submit',
          builtBy: 'service',
          proposalId: answer.proposal.id,
        });
      } catch (error) {
        if (error instanceof ServiceRefusedError) throw new CloseRefusedError(error.code, error.message);
        // The service cannot build now: built here.
        this.unavailable(error);
      }
    }
    return this.ledger.build(pool, options);
  }

  /**
   * Whether an auction runs against the wallet: asked of the pool's Auction entry on the ledger when the service's
   * `liquidation_auction` trigger says so or the position is under 1.0 (the only kind an auction can start against),
   * so the rescue goes out the poll the agent sees the auction even before the monitor flags it, and a trigger that
   * outlives a deleted auction starts nothing. When the ledger cannot be read, the trigger decides.
   */
  private async auctionAgainst(position: {
    poolAddress: string;
    healthFactor: number | null;
    triggers?: readonly string[];
  }) {
    const flagged = position.triggers?.includes('liquidation_auction') === true;
    if (!flagged && (position.healthFactor === null || position.healthFactor >= 1)) return false;
    return this.ledger.auction(position.poolAddress).catch(() => flagged);
  }

  /** A refused key is told to the subscription; anything but the service being unavailable is thrown on. */
  private unavailable(error: unknown): void {
    if (error instanceof KeyRejectedError) void this.subscription.keyRejected();
    else if (!(error instanceof ServiceUnavailableError)) throw error;
  }
}
