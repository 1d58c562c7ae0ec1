import type { AgentConfig } from '../config/agent.config';
import type { LedgerView } from '../ledger/ledger-view';
import type { MockService } from '../mock/mock-service';
import {
  KeyRejectedError,
  type ServiceClient,
  ServiceRefusedError,
  ServiceUnavailableError,
} from '../service/service-client';
import type { SubscriptionKeeper } from '../subscription/subscription-keeper';
import { type BuiltClose, CloseRefusedError } from './built-close';

/**
 * Builds the close of a pool: by the service's txb (UNWIND, with `targetHealthFactor` for `deleverage`) while the
 * agent has a valid key and the service answers, otherwise by the agent itself from the ledger (the same routing);
 * in mock mode by the mock. A refusal (no position, target reached...) is `CloseRefusedError` either way.
 */
export class CloseBuilder {
  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: string,
    private readonly ledger: LedgerView,
    private readonly service: ServiceClient,
    private readonly subscription: SubscriptionKeeper,
    private readonly mock: MockService | undefined,
  ) {}

  /** `ledgerOnly`: the service's build was refused by the signing rule, build it here. */
  async build(pool: string, mockSequence = '1', ledgerOnly = false): Promise<BuiltClose> {
    if (this.mock) return this.mock.build(mockSequence);
    const deleverage = this.config.CLOSE_STRATEGY === 'deleverage';
    const apiKey = ledgerOnly ? undefined : this.subscription.apiKey();
    if (apiKey) {
      try {
        const answer = await this.service.build(apiKey, {
          walletAddress: this.wallet,
          poolAddress: pool,
          slippageBps: this.config.SLIPPAGE,
          ...(deleverage && { targetHealthFactor: this.config.TARGET_HEALTH_FACTOR }),
        });
        return {
          unsignedXdr: answer.transaction.transactionXdr,
          route: answer.proposal.metadata.route ?? 'submit',
          builtBy: 'service',
          proposalId: answer.proposal.id,
        };
      } catch (error) {
        if (error instanceof ServiceRefusedError) throw new CloseRefusedError(error.code, error.message);
        if (error instanceof KeyRejectedError) void this.subscription.keyRejected();
        else if (!(error instanceof ServiceUnavailableError)) throw error;
        // The service cannot build now: build it here.
      }
    }
    return this.ledger.buildClose(pool, this.config.CLOSE_STRATEGY, this.config.TARGET_HEALTH_FACTOR, this.config.SLIPPAGE);
  }
}
