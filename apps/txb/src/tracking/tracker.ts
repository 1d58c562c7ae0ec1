import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { parseEnvelope } from '@rp/ledger';
import { TxbLedger } from '../ledger/txb-ledger';
import type { ProposalRecord } from '../proposals/proposal';
import { ProposalRepository } from '../proposals/proposal.repository';
import { TransactionSender } from '../submission/transaction-sender';
import { type TrackingStep, nextStep } from './tracking-decisions';
import { TrackingRepository } from './tracking.repository';

/** How often each replica looks for due work. */
export const TICK_MS = 500;
/** How long a replica may hold one proposal; a replica that dies holding it delays the others this much at most. */
export const LEASE_MS = 10_000;
/** Proposals checked per tick per replica. */
const BATCH = 25;

/**
 * Follows every signed or submitted transaction until the ledger shows it (`confirmed`), shows it failed, or its time
 * bound has passed without it (`failed`), and expires pending proposals. Runs in every replica on a work list in
 * Redis with a lease per proposal, so the replica that submitted a transaction may die at any point: another
 * replica, or the restarted one, carries on from what Redis and the ledger say. Only a `SUCCESS` from the ledger
 * makes a proposal confirmed.
 */
@Injectable()
export class Tracker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(Tracker.name);
  /** Names this replica's leases. */
  private readonly holder = randomUUID();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly ledger: TxbLedger,
    private readonly proposals: ProposalRepository,
    private readonly work: TrackingRepository,
    private readonly sender: TransactionSender,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: expire what ran out, then check what is due. Exposed for tests that drive the tracker by hand. */
  async tick(now = Date.now()): Promise<void> {
    await this.expirePending(now);
    if (!this.ledger.configured) return;
    const due = await this.work.due(now, BATCH);
    await Promise.all(due.map((id) => this.track(id)));
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'tracker pass failed'))
        .finally(() => {
          this.running = undefined;
          // A little jitter keeps replicas from asking Redis in lockstep.
          this.schedule(TICK_MS + Math.floor(Math.random() * 100));
        });
    }, delay);
    this.timer.unref();
  }

  /** Pending proposals whose lifetime ran out fail; signed ones stay with the tracker (they may have been sent). */
  private async expirePending(now: number): Promise<void> {
    // Signed and submitted proposals stay live past their expiry until the ledger settles them, ahead of the pending
    // ones in expiry order: look far enough to reach the pending ones behind them.
    const ids = await this.proposals.expiredLive(now, 8 * BATCH);
    for (const id of ids) {
      const record = await this.proposals.get(id);
      if (!record) continue;
      if (record.status === 'pending') await this.proposals.expire(id, now);
      else if (record.status === 'signed' || record.status === 'submitted') await this.work.ensure(id, now);
    }
  }

  private async track(id: string): Promise<void> {
    if (!(await this.work.lease(id, this.holder, LEASE_MS))) return;
    try {
      const record = await this.proposals.get(id);
      if (!record || (record.status !== 'signed' && record.status !== 'submitted')) {
        await this.work.remove(id);
        return;
      }
      await this.follow(record);
    } catch (error) {
      this.logger.warn({ err: error, proposal: id }, 'could not check a transaction; retrying later');
      await this.work.reschedule(id, Date.now() + 5 * TICK_MS).catch(() => undefined);
    } finally {
      await this.work.release(id, this.holder).catch(() => undefined);
    }
  }

  private async follow(record: ProposalRecord): Promise<void> {
    const hash = record.txHash ?? record.hash;
    const verdict = await this.sender.verdict(hash, record.rpcUrl);
    const step = nextStep(record, verdict, Date.now());
    await this.apply(record, step);
  }

  private async apply(record: ProposalRecord, step: TrackingStep): Promise<void> {
    const now = Date.now();
    const base = { id: record.id, from: ['signed', 'submitted'] as const, now, hash: record.hash };
    switch (step.kind) {
      case 'confirm':
        await this.proposals.transition({
          ...base,
          to: 'confirmed',
          patch: { ledger: step.ledger, submittedAt: record.submittedAt ?? now },
        });
        this.logger.log({ proposal: record.id, txHash: record.txHash, ledger: step.ledger }, 'transaction confirmed');
        return;
      case 'fail':
        await this.proposals.transition({
          ...base,
          to: 'failed',
          patch: { failure: step.failure, ...(step.ledger !== undefined && { ledger: step.ledger }) },
        });
        this.logger.log({ proposal: record.id, failure: step.failure }, 'transaction failed');
        return;
      case 'resend':
        await this.resend(record, now);
        return;
      case 'wait':
        await this.work.reschedule(record.id, now + step.delayMs);
        return;
    }
  }

  /**
   * Sends the signed envelope again: a copy the network already holds comes back DUPLICATE, one it lost (or one
   * the dead submitter never sent) is queued. A refusal is only noted: the ledger may still show the first copy.
   */
  private async resend(record: ProposalRecord, now: number): Promise<void> {
    if (!record.signedXdr) {
      await this.work.reschedule(record.id, now + 2 * TICK_MS);
      return;
    }
    const parsed = parseEnvelope(record.signedXdr, await this.ledger.passphrase());
    if (!parsed.ok) {
      await this.proposals.transition({
        id: record.id,
        from: ['signed', 'submitted'],
        to: 'failed',
        now,
        hash: record.hash,
        patch: { failure: { reason: 'rejected', resultCode: 'txMalformed' } },
      });
      return;
    }
    const outcome = await this.sender.send(parsed.transaction, record.rpcUrl);
    if (outcome.kind === 'accepted') {
      await this.proposals.transition({
        id: record.id,
        from: ['signed', 'submitted'],
        to: 'submitted',
        now,
        hash: record.hash,
        patch: { lastSentAt: now, submittedAt: record.submittedAt ?? now },
        tracking: { kind: 'at', at: now + 2 * TICK_MS },
      });
      return;
    }
    if (outcome.kind === 'rejected') {
      await this.proposals.transition({
        id: record.id,
        from: [record.status],
        to: record.status,
        now,
        hash: record.hash,
        patch: {
          lastSentAt: now,
          rejectedAt: record.rejectedAt ?? now,
          rejection: { reason: 'rejected', ...outcome.failure },
        },
        tracking: { kind: 'at', at: now + 2 * TICK_MS },
      });
      return;
    }
    await this.work.reschedule(record.id, now + 2 * TICK_MS);
  }
}
