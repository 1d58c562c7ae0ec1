import { cappedInclusionFee, inclusionFeeOf, repricedInclusionFee, resourceFeeOf, withInclusionFee } from '@rp/ledger';
import type { AgentConfig } from '../config/agent.config';
import type { LedgerView } from '../ledger/ledger-view';
import type { BuiltClose } from './built-close';
import { RescueTarget } from './rescue-target';

/**
 * Builds the close of a pool from the ledger (the UNWIND routing txb uses, `deleverage` with
 * `TARGET_HEALTH_FACTOR`) and prices every close the agent signs, its own or the service's (`priced`): the inclusion
 * fee the network asks now, within `MAX_CLOSE_FEE_STROOPS`. A refusal (no position, target reached...) is
 * `CloseRefusedError`.
 */
export class CloseBuilder {
  constructor(
    private readonly config: AgentConfig,
    private readonly ledger: LedgerView,
    private readonly target: RescueTarget = new RescueTarget(),
  ) {}

  /** The rescue from a liquidation auction built here from the ledger, priced (ADR 027). */
  async buildRescue(pool: string): Promise<BuiltClose> {
    return this.priced(await this.ledger.buildRescue(pool, this.target.value, this.config.SLIPPAGE));
  }

  /** The close built here from the ledger, priced. */
  async build(pool: string): Promise<BuiltClose> {
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
    return inclusionFeeOf(envelopeXdr) < this.inclusionFeeFor(envelopeXdr, this.ledger.fees.known());
  }

  /**
   * The next bid of a close the ledger left out (docs/agent.md, Re-pricing): twice its bid or the network's ask now,
   * within `MAX_CLOSE_FEE_STROOPS`; `undefined` at the cap.
   */
  async nextBid(envelopeXdr: string): Promise<bigint | undefined> {
    const cap = BigInt(this.config.MAX_CLOSE_FEE_STROOPS);
    return repricedInclusionFee(inclusionFeeOf(envelopeXdr), await this.ledger.fees.ask(), resourceFeeOf(envelopeXdr), cap);
  }

  /** The inclusion fee a close with this envelope's resources is offered at for the network's `ask`. */
  inclusionFeeFor(envelopeXdr: string, ask: bigint): bigint {
    return cappedInclusionFee(ask, resourceFeeOf(envelopeXdr), BigInt(this.config.MAX_CLOSE_FEE_STROOPS));
  }
}
