import type { AgentMetrics } from '../metrics/agent-metrics';
import type { AgentStore, AuditRecord, CloseAttempt } from '../store/agent-store';
import type { Decision } from './close-path';

export type AttemptFields = Pick<AuditRecord, 'txHash' | 'outcome' | 'settledAt' | 'path' | 'builtBy' | 'validUntil'> & {
  error?: string;
  attempts?: CloseAttempt[];
};

/** The transactions of a close so far: the newest hash and every attempt. */
export interface SentTransactions {
  readonly txHash: string;
  readonly attempts: CloseAttempt[];
}

/**
 * The audit of the wallet's closes (DECISIONS.md, Agent): one record per attempt, written before the send (the hash
 * is known) and settled once its outcome is final; every outcome counted in the metrics.
 */
export class CloseAudit {
  constructor(
    private readonly store: AgentStore,
    private readonly wallet: string,
    private readonly metrics: AgentMetrics,
  ) {}

  /** The newest attempt on the pool decided at or after `sinceMs`. */
  recent(pool: string, sinceMs: number): Promise<AuditRecord | null> {
    return this.store.audit.findOne(
      { wallet: this.wallet, poolAddress: pool, decidedAtMs: { $gte: sinceMs } },
      { sort: { field: 'decidedAtMs', direction: 'desc' } },
    );
  }

  async record(decision: Decision, decidedAtMs: number, fields: AttemptFields): Promise<AuditRecord> {
    const record = await this.store.audit.insert({
      wallet: this.wallet,
      poolAddress: decision.poolAddress,
      riskSnapshot: decision.snapshot,
      decidedAtMs,
      recordedAtMs: Date.now(),
      ...fields,
    });
    this.metrics.close(fields.outcome);
    return record;
  }

  async settle(record: AuditRecord, outcome: 'confirmed' | 'failed', error?: string, sent?: SentTransactions): Promise<void> {
    await this.store.audit.updateOne(
      { id: record.id },
      {
        set: {
          outcome,
          settledAt: new Date().toISOString(),
          ...(error !== undefined && { error }),
          ...(sent && { txHash: sent.txHash, attempts: sent.attempts }),
        },
      },
    );
    this.metrics.close(outcome);
  }

  /** A close re-priced while it is followed: the newest hash and the attempts so far (`/status` shows them). */
  async sent(record: AuditRecord, sent: SentTransactions): Promise<void> {
    await this.store.audit.updateOne({ id: record.id }, { set: { txHash: sent.txHash, attempts: sent.attempts } });
  }

  /** The attempts still `submitted`: an earlier run stopped before their outcome. */
  open(): Promise<AuditRecord[]> {
    return this.store.audit.find({ wallet: this.wallet, outcome: 'submitted' });
  }
}
