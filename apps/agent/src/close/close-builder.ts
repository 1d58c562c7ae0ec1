import { cappedInclusionFee, inclusionFeeOf, resourceFeeOf, withInclusionFee } from '@rp/ledger';
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
 * Either build is priced here (`priced`): the inclusion fee the network asks now, within `MAX_CLOSE_FEE_STROOPS`.
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
        return await this.priced({
          unsignedXdr: answer.transaction.transactionXdr,
          route: answer.proposal.metadata.route ?? 'submit',
          builtBy: 'service',
          proposalId: answer.proposal.id,
        });
      } catch (error) {
        if (error instanceof ServiceRefusedError) throw new CloseRefusedError(error.code, error.message);
        if (error instanceof KeyRejectedError) void this.subscription.keyRejected();
        else if (!(error instanceof ServiceUnavailableError)) throw error;
        // The service cannot build now: build it here.
      }
    }
    return this.priced(
      await this.ledger.buildClose(pool, this.config.CLOSE_STRATEGY, this.config.TARGET_HEALTH_FACTOR, this.config.SLIPPAGE),
    );
  }

  /**
   * The build bidding what the network asks now (`getFeeStats` p95 + 25%), lowered so inclusion plus resources
   * stay within `MAX_CLOSE_FEE_STROOPS`. Only ever raised: a build already bidding more keeps its fee. A service
   * build re-priced has another hash than txb's proposal (txb's tracking then does not know it).
   */
  async priced(built: BuiltClose): Promise<BuiltClose> {
    const fee = this.inclusionFeeFor(built.unsignedXdr, await this.ledger.fees.ask());
    if (fee <= inclusionFeeOf(built.unsignedXdr)) return built;
    return { ...built, unsignedXdr: withInclusionFee(built.unsignedXdr, fee) };
  }

  /**
   * Whether a signed-ahead close bids less than the network asked at the last read (no I/O: checked right before a
   * presigned close is sent; when it does, the close is built and signed again at the current fee).
   */
  underpriced(envelopeXdr: string): boolean {
    if (this.mock) return false;
    return inclusionFeeOf(envelopeXdr) < this.inclusionFeeFor(envelopeXdr, this.ledger.fees.known());
  }

  /** The inclusion fee a close with this envelope's resources is offered at for the network's `ask`. */
  inclusionFeeFor(envelopeXdr: string, ask: bigint): bigint {
    return cappedInclusionFee(ask, resourceFeeOf(envelopeXdr), BigInt(this.config.MAX_CLOSE_FEE_STROOPS));
  }
}
