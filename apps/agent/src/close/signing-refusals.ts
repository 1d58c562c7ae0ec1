import type { SigningRefusalReason } from '@rp/ledger';
import type { Logger } from 'pino';
import type { AgentMetrics } from '../metrics/agent-metrics';

/** Who built the transaction the signing rule refused. */
export type RefusalSource = 'service' | 'ledger';

export interface SigningRefusal {
  readonly at: string;
  readonly source: RefusalSource;
  readonly reason: SigningRefusalReason;
  readonly pool: string;
  readonly detail: string;
}

/** `/status.refusals` keeps this many, newest first. */
const KEPT = 10;

/**
 * Every transaction the signing rule refuses goes through `record` (the one place): one warning line,
 * `agent_refused_transactions_total{reason}`, `/status.refusals` (the latest ten), and the listeners, where the
 * owner's events attach (`onRefusal`).
 */
export class SigningRefusals {
  private readonly latest: SigningRefusal[] = [];
  private readonly listeners: ((refusal: SigningRefusal) => void)[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly metrics: AgentMetrics,
  ) {}

  record(refusal: { source: RefusalSource; reason: SigningRefusalReason; pool: string; detail: string }): SigningRefusal {
    const recorded: SigningRefusal = { at: new Date().toISOString(), ...refusal };
    this.latest.unshift(recorded);
    this.latest.length = Math.min(this.latest.length, KEPT);
    this.metrics.refusedTransaction(refusal.reason);
    this.logger.warn(
      { pool: refusal.pool, source: refusal.source, reason: refusal.reason, detail: refusal.detail },
      'refused to sign a transaction: nothing signed or sent',
    );
    for (const listener of this.listeners) {
      try {
        listener(recorded);
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'a refusal listener failed');
      }
    }
    return recorded;
  }

  /** Called with each refusal once it is recorded (e.g. to tell the wallet's owner). */
  onRefusal(listener: (refusal: SigningRefusal) => void): void {
    this.listeners.push(listener);
  }

  /** The latest ten, newest first, as `/status.refusals` shows them. */
  view(): { at: string; source: RefusalSource; reason: SigningRefusalReason }[] {
    return this.latest.map(({ at, source, reason }) => ({ at, source, reason }));
  }
}
