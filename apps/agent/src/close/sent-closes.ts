import type { Logger } from 'pino';
import type { AgentMetrics } from '../metrics/agent-metrics';
import type { CloseReport } from '../owner/close-report';
import type { AuditRecord } from '../store/agent-store';
import type { Subscription } from '../subscription/subscription';
import { CloseRefusedError } from './built-close';
import type { CloseAudit } from './close-audit';
import type { ChosenClose, CloseChoice } from './close-choice';
import type { ClosePath, Decision, SignedClose } from './close-path';
import { CloseResend, sentAttempt } from './close-resend';
import type { CloseSender } from './close-sender';
import type { PresignedCache } from './presigned-cache';

/** Attempts per decision: the presigned close (or a first build), then rebuilds after a refusal or failure. */
const MAX_ATTEMPTS = 3;

type Attempt = { readonly done: boolean } | { readonly done: false; readonly hash: string; readonly error: string };

/**
 * Closes sent to the network: each attempt chooses its transaction (`CloseChoice`), is audited before the send
 * (`CloseAudit`), sent and followed to its final state (`CloseSender`); when the ledger refuses or fails it, the next
 * attempt builds, signs and sends it again. The owner hears sent, confirmed, or failed once per decision.
 */
export class SentCloses implements ClosePath {
  private stopped = false;
  private readonly resend: CloseResend;

  constructor(
    private readonly choice: CloseChoice,
    private readonly audit: CloseAudit,
    private readonly sender: CloseSender,
    private readonly presigned: PresignedCache,
    private readonly subscription: Subscription,
    private readonly report: CloseReport,
    private readonly metrics: AgentMetrics,
    private readonly logger: Logger,
  ) {
    this.resend = new CloseResend(sender, choice.repricer, logger);
  }

  stop(): void {
    this.stopped = true;
  }

  buildSigned(pool: string): Promise<SignedClose> {
    return this.choice.buildSigned(pool, () => this.stopped);
  }

  async carryOut(decision: Decision, decidedAtMs: number): Promise<boolean> {
    const facts = { poolAddress: decision.poolAddress, riskSnapshot: decision.snapshot };
    let lastHash: string | undefined;
    let lastError = 'not sent';
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !this.stopped; attempt += 1) {
      let chosen: ChosenClose;
      try {
        chosen = await this.choice.choose(decision, attempt, () => this.stopped);
      } catch (error) {
        return this.notBuilt(decision, decidedAtMs, error as Error, lastHash);
      }
      const outcome = await this.sendAndFollow(decision, decidedAtMs, chosen);
      if (outcome.done) return true;
      // Stopping while it is pending: the record stays `submitted` and the next start follows it (resume()).
      if (this.stopped) return false;
      if ('hash' in outcome) {
        lastHash = outcome.hash;
        lastError = outcome.error;
      }
    }
    if (!this.stopped) await this.report.failed({ ...facts, txHash: lastHash }, lastError);
    return false;
  }

  /** No transaction could be built: a position that is gone ends the decision, anything else fails it. */
  private async notBuilt(decision: Decision, decidedAtMs: number, error: Error, lastHash: string | undefined) {
    // No position left, or (a rescue) no auction left: nothing to do, not a failure.
    const gone = error instanceof CloseRefusedError && (error.code.startsWith('NO_') || error.code === 'AUCTION_NOT_FOUND');
    await this.audit.record(decision, decidedAtMs, {
      txHash: null,
      outcome: gone ? 'skipped' : 'failed',
      error: error.message,
      settledAt: new Date().toISOString(),
      path: 'rebuilt',
      builtBy: 'ledger',
      validUntil: 0,
    });
    this.logger.warn({ pool: decision.poolAddress, err: error.message }, 'could not build the close');
    if (!gone) {
      await this.report.failed({ poolAddress: decision.poolAddress, riskSnapshot: decision.snapshot, txHash: lastHash }, error.message);
    }
    return gone;
  }

  /**
   * One attempt: audited, sent, followed and re-priced while the ledger leaves it out (`CloseResend`); `done` once
   * confirmed, else the newest hash and why it failed. Every transaction sent is in the record's `attempts`.
   */
  private async sendAndFollow(decision: Decision, decidedAtMs: number, chosen: ChosenClose): Promise<Attempt> {
    const pool = decision.poolAddress;
    const { signed, builtBy, path } = chosen;
    const record = await this.audit.record(decision, decidedAtMs, {
      txHash: signed.hash,
      outcome: 'submitted',
      settledAt: null,
      path,
      builtBy,
      validUntil: signed.validUntil,
      attempts: [sentAttempt(chosen)],
    });
    const sentAt = Date.now();
    this.metrics.decisionToSend((sentAt - decidedAtMs) / 1000, path);
    const apiKey = builtBy === 'service' ? this.subscription.apiKey() : undefined;
    const sent = await this.sender
      .send(signed, apiKey)
      .catch((error: unknown) => ({ accepted: false as const, hash: signed.hash, error: (error as Error).message }));
    this.logger.info(
      {
        pool,
        txHash: signed.hash,
        path,
        builtBy,
        decisionToSendMs: sentAt - decidedAtMs,
        // Until the network (or txb's submit, which sends it) answered: an upper bound of the send itself.
        decisionToAcceptedMs: Date.now() - decidedAtMs,
        accepted: sent.accepted,
        via: sent.accepted ? sent.via : undefined,
      },
      sent.accepted ? 'close sent' : 'close refused at submission',
    );
    if (!sent.accepted) {
      await this.audit.settle(record, 'failed', sent.error, {
        txHash: signed.hash,
        attempts: [sentAttempt(chosen, 'failed', sent.error)],
      });
      this.presigned.drop(pool);
      return { done: false, hash: signed.hash, error: sent.error };
    }
    await this.report.sent({ poolAddress: pool, riskSnapshot: decision.snapshot, txHash: signed.hash });
    const followed = await this.resend.follow(chosen, apiKey, (resent) => this.audit.sent(record, resent), () => this.stopped);
    const { final } = followed;
    // The owner hears of the transaction that settled the close: a re-priced one has its own hash.
    const facts = { poolAddress: pool, riskSnapshot: decision.snapshot, txHash: final.hash };
    if (final.state === 'confirmed') {
      await this.audit.settle(record, 'confirmed', undefined, followed.sent);
      this.presigned.drop(pool);
      this.logger.info({ pool, txHash: final.hash, ledger: final.ledger, attempts: followed.sent.attempts.length }, 'close confirmed');
      await this.report.confirmed(facts);
      return { done: true };
    }
    if (this.stopped) return { done: false };
    await this.audit.settle(record, 'failed', final.error, followed.sent);
    this.presigned.drop(pool);
    this.logger.warn({ pool, txHash: final.hash, error: final.error }, 'close failed on the ledger; rebuilding');
    return { done: false, hash: final.hash, error: final.error };
  }

  async resume(busy: (pool: string) => boolean): Promise<void> {
    const open = await this.audit.open();
    await Promise.all(open.map((record) => this.settleEarlier(record, busy)));
  }

  private async settleEarlier(record: AuditRecord, busy: (pool: string) => boolean): Promise<void> {
    // A close this run is following is settled (and told) by carryOut() itself.
    if (!record.txHash || busy(record.poolAddress)) return;
    const final = await this.sender.follow(record.txHash, record.validUntil, () => this.stopped);
    if (final.state === 'failed' && this.stopped) return;
    await this.audit.settle(record, final.state, final.state === 'failed' ? final.error : undefined);
    this.logger.info({ pool: record.poolAddress, txHash: record.txHash, outcome: final.state }, 'earlier close settled');
    if (final.state === 'confirmed') await this.report.confirmed(record);
    else await this.report.failed(record, final.error);
  }
}
