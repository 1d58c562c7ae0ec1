import type { RefusalSource } from '@rp/contracts';
import type { Logger } from 'pino';
import type { LedgerView } from '../ledger/ledger-view';
import type { RiskSnapshot } from '../store/agent-store';
import { NO_OWNER_EVENTS, type OwnerEvents } from './owner-events';

/** What the closer knows of one close when it tells the owner: the pool, the decision's snapshot, the hash. */
export interface CloseFacts {
  readonly poolAddress: string;
  readonly riskSnapshot: RiskSnapshot;
  readonly txHash?: string | null;
}

/**
 * The owner's close events (issue 17 §3), as the closer emits them: `close_sent` once the network took a close,
 * `close_confirmed` once the ledger holds it (with the health factor read back from the ledger), `close_failed` once
 * per decision that ends without a confirmed close. A decision is not an event of its own: the presigned close is
 * sent a few milliseconds after it, so `close_sent` (or `close_failed`, when nothing could be sent) tells it, with
 * the health factor the decision was taken at.
 *
 * A close that keeps failing is decided again at every poll (the cooldown is given back): once `close_failed` was
 * told for a pool, its further `close_sent` and `close_failed` are held back for `quietMs` (`CLOSE_COOLDOWN_TTL`) or
 * until a close of it confirms, so the owner hears "failed" once per streak, not every few seconds. Closes are never
 * held back by the service's cooldowns (ADR 019), hence here.
 */
export class CloseReport {
  /** When `close_failed` was last told, per pool. */
  private readonly failedAt = new Map<string, number>();
  /** When a refusal was last told, per pool, source and reason. */
  private readonly refusedAt = new Map<string, number>();

  constructor(
    private readonly owner: OwnerEvents,
    private readonly ledger: Pick<LedgerView, 'position'> | undefined,
    private readonly logger: Logger,
    private readonly quietMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async sent(close: CloseFacts): Promise<void> {
    if (this.owner === NO_OWNER_EVENTS || this.quiet(close.poolAddress)) return;
    await this.owner.emit({ type: 'close_sent', ...this.base(close) });
  }

  async confirmed(close: CloseFacts): Promise<void> {
    if (this.owner === NO_OWNER_EVENTS) return;
    this.failedAt.delete(close.poolAddress);
    const healthFactorAfter = await this.healthFactorNow(close.poolAddress);
    await this.owner.emit({
      type: 'close_confirmed',
      ...this.base(close),
      ...(healthFactorAfter !== undefined && { healthFactorAfter }),
    });
  }

  async failed(close: CloseFacts, detail: string): Promise<void> {
    if (this.owner === NO_OWNER_EVENTS || this.quiet(close.poolAddress)) return;
    this.failedAt.set(close.poolAddress, this.now());
    await this.owner.emit({ type: 'close_failed', ...this.base(close), detail: oneSentence(detail) });
  }

  /**
   * A transaction the signing rule refused (issue 17 §1, §3). A hostile service answers every poll with the same
   * thing: the same pool, source and reason is told once per `quietMs`, so the owner hears of it, not of each poll.
   */
  async refused(refusal: { source: RefusalSource; reason: string; pool: string; detail: string }): Promise<void> {
    if (this.owner === NO_OWNER_EVENTS) return;
    const key = `${refusal.pool}|${refusal.source}|${refusal.reason}`;
    const at = this.refusedAt.get(key);
    if (at !== undefined && this.now() - at < this.quietMs) return;
    this.refusedAt.set(key, this.now());
    await this.owner.emit({
      type: 'refused',
      source: refusal.source,
      reason: refusal.reason,
      poolAddress: refusal.pool,
      detail: oneSentence(refusal.detail),
    });
  }

  private quiet(pool: string): boolean {
    const at = this.failedAt.get(pool);
    return at !== undefined && this.now() - at < this.quietMs;
  }

  private base(close: CloseFacts) {
    const position = close.riskSnapshot.positions.find((entry) => entry.poolAddress === close.poolAddress);
    return {
      poolAddress: close.poolAddress,
      healthFactorBefore: position?.healthFactor ?? null,
      ...(close.txHash && { txHash: close.txHash }),
    };
  }

  /** The position's health factor on the ledger now: `null` once it has no debt left, omitted when unreadable. */
  private async healthFactorNow(pool: string): Promise<number | null | undefined> {
    if (!this.ledger) return undefined;
    try {
      const found = await this.ledger.position(pool);
      return found?.position.healthFactor ?? null;
    } catch (error) {
      this.logger.warn({ pool, err: (error as Error).message }, 'could not read the position after the close');
      return undefined;
    }
  }
}

/** The service takes one printable sentence of at most 300 characters. */
function oneSentence(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const printable = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return printable.length > 300 ? `${printable.slice(0, 297)}...` : printable;
}
