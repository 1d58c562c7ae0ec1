import { type CloseSigningContext, type LedgerWallet, type SignedAhead, signAhead } from '@rp/ledger';
import type { Logger } from 'pino';
import type { AgentService } from '../service/agent-service';
import type { Subscription } from '../subscription/subscription';
import { type BuiltClose, CloseRefusedError } from './built-close';
import type { CloseBuilder } from './close-builder';
import { CloseRepricer } from './close-repricer';
import type { Decision, SignedClose } from './close-path';
import type { CloseSender } from './close-sender';
import { type PresignedCache, movedBeyondSlippage, sendable } from './presigned-cache';
import type { SigningGuard } from './signing-guard';

/** Approvals waited for before the close is built again. */
const MAX_APPROVALS = 2;

/** The transaction an attempt sends, and how it was made. */
export interface ChosenClose extends SignedClose {
  readonly path: 'presigned' | 'rebuilt';
}

/**
 * Chooses the transaction of a close attempt: the presigned close while it is still good to send, otherwise one
 * built and signed now. Nothing is signed before the signing rule (`SigningGuard`) accepts it, and a presigned close
 * passes the rule once more (no I/O) before it is chosen.
 */
export class CloseChoice {
  /** Re-signs a close the ledger left out at a higher fee, under the same rule. */
  readonly repricer: CloseRepricer;

  constructor(
    private readonly wallet: LedgerWallet,
    private readonly slippageBps: number,
    private readonly service: AgentService,
    private readonly builder: CloseBuilder,
    private readonly guard: SigningGuard,
    private readonly presigned: PresignedCache,
    private readonly sender: CloseSender,
    private readonly subscription: Subscription,
    private readonly passphrase: () => Promise<string>,
    private readonly logger: Logger,
  ) {
    this.repricer = new CloseRepricer(wallet, builder, guard);
  }

  /**
   * The first attempt takes the presigned close if it is still good; any other builds and signs it again. A rescue
   * (an auction against the wallet) is built at once; when the wallet cannot reach health with what it holds
   * (`RESCUE_NOT_POSSIBLE`), the close is built instead, deleting the auction as it unwinds.
   */
  async choose(decision: Decision, attempt: number, stopped: () => boolean): Promise<ChosenClose> {
    const pool = decision.poolAddress;
    if (decision.rescue) {
      this.presigned.drop(pool);
      try {
        return { ...(await this.buildSigned(pool, stopped, true)), path: 'rebuilt' };
      } catch (error) {
        if (!(error instanceof CloseRefusedError) || error.code !== 'RESCUE_NOT_POSSIBLE') throw error;
        this.logger.warn({ pool, err: error.message }, 'the rescue is not possible: unwinding instead');
        return { ...(await this.buildSigned(pool, stopped)), path: 'rebuilt' };
      }
    }
    const entry = this.presigned.get(pool);
    if (attempt === 0 && entry && this.stillGood(decision, entry)) {
      return { signed: entry.signed, builtBy: entry.builtBy, rule: entry.rule, path: 'presigned' };
    }
    this.presigned.drop(pool);
    return { ...(await this.buildSigned(pool, stopped)), path: 'rebuilt' };
  }

  private stillGood(decision: Decision, entry: NonNullable<ReturnType<PresignedCache['get']>>): boolean {
    return (
      sendable(entry, decision.accountSequence, Date.now() / 1000) &&
      !movedBeyondSlippage(entry.prices, decision.snapshot.prices, this.slippageBps) &&
      // Bidding less than the network asked at the last fee read (no I/O): built and signed again at that fee.
      !this.builder.underpriced(entry.signed.envelope) &&
      // The rule once more on what was signed ahead (no I/O): a refusal drops it and the close is built again.
      (entry.rule === undefined ||
        this.guard.recheck(entry.signed.envelope, entry.rule, decision.accountSequence, entry.builtBy).ok)
    );
  }

  /**
   * Builds and signs a close; an approval the pool needs first is sent and waited for, then the close is built.
   * Nothing is signed before the signing rule accepts it: a build of the service's it refuses is built again here
   * from the ledger (and the service is not asked again within this close), which must pass the same rule.
   */
  async buildSigned(pool: string, stopped: () => boolean, rescue = false): Promise<SignedClose> {
    const passphrase = await this.passphrase();
    let ledgerOnly = false;
    for (let round = 0; round <= MAX_APPROVALS; round += 1) {
      let built: BuiltClose = await this.service.build(pool, { ledgerOnly, rescue });
      let checked = await this.guard.check(pool, built);
      if (!checked.ok && built.builtBy === 'service') {
        ledgerOnly = true;
        built = await this.service.build(pool, { ledgerOnly, rescue });
        checked = await this.guard.check(pool, built);
      }
      if (!checked.ok) throw new CloseRefusedError('TRANSACTION_REFUSED', `${checked.reason}: ${checked.detail}`);
      const rule: CloseSigningContext = checked.context;
      const signed = signAhead(this.wallet, built.unsignedXdr, passphrase);
      if (built.route !== 'approve') return { signed, builtBy: built.builtBy, rule };
      await this.approve(pool, signed, built, stopped);
    }
    throw new CloseRefusedError('APPROVAL_NOT_EFFECTIVE', 'the pool still lacks the approval after approving it');
  }

  private async approve(pool: string, signed: SignedAhead, built: BuiltClose, stopped: () => boolean): Promise<void> {
    this.logger.info({ pool, txHash: signed.hash }, 'approving the pool to settle the unwind (needed before the close)');
    const sent = await this.sender.send(signed, built.builtBy === 'service' ? this.subscription.apiKey() : undefined);
    if (!sent.accepted) throw new CloseRefusedError('APPROVAL_REFUSED', sent.error);
    const final = await this.sender.follow(signed.hash, signed.validUntil, stopped);
    if (final.state !== 'confirmed') throw new CloseRefusedError('APPROVAL_FAILED', final.error);
  }
}
