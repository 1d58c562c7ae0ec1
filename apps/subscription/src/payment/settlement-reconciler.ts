import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { PaymentContext } from './payment-context';
import { PaymentRepository } from './payment.repository';
import { SettlementRepricer } from './settlement-repricer';
import { SettlementService } from './settlement.service';

/** A claim with no settlement this old was left by a process that stopped before sending anything. */
const STALE_RESERVATION_MS = 120_000;

/**
 * Finishes settlements nobody is waiting for: those of a request that answered 202, or of a process that crashed
 * or was redeployed between sending and recording the outcome. At start and every SETTLEMENT_RECONCILE_INTERVAL_MS
 * it looks each `settling` payment up on the ledger: settled (the buyer collects the key by sending the same
 * payment again), failed (refused from then on), or never applied and past its time bound (released: the same
 * payment may be sent again, no money moved). One still in no ledger for two ledgers is re-priced
 * (`SettlementRepricer`). Claims that never reached a settlement are released. Replicas may all run it: every
 * transition applies once.
 */
@Injectable()
export class SettlementReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SettlementReconciler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** What the "settlements stuck" alert reads: 0 when every settlement the last pass saw was resolved. */
  private readonly oldestUnresolved: Gauge;

  constructor(
    private readonly context: PaymentContext,
    private readonly payments: PaymentRepository,
    private readonly settlement: SettlementService,
    private readonly repricer: SettlementRepricer,
    registry: Registry,
  ) {
    this.oldestUnresolved = new Gauge({
      name: 'subscription_settlement_oldest_unresolved_seconds',
      help: 'Age (since sent) of the oldest settlement the last reconciliation pass left unresolved; 0 when none',
      registers: [registry],
    });
  }

  onApplicationBootstrap(): void {
    if (!this.context.configured) return;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.context.current().settings.reconcileIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; a pass still running is not overlapped. Resolves when the pass is done. */
  tick(): Promise<void> {
    this.running ??= this.reconcile()
      .catch((error: unknown) => this.logger.warn(`reconciliation pass failed: ${(error as Error).message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async reconcile(): Promise<void> {
    const unresolved = await this.payments.unresolved();
    let oldestSentAt: number | undefined;
    for (const record of unresolved) {
      const { resolution, record: latest } = await this.settlement.resolve(record);
      if (resolution !== 'pending') {
        this.logger.log({ paymentId: record.id, txHash: latest.txHash, resolution }, 'settlement reconciled');
        continue;
      }
      if (record.sentAt) oldestSentAt = Math.min(oldestSentAt ?? Infinity, record.sentAt.getTime());
      // In no ledger yet: under surge pricing its fee may be what keeps it out.
      await this.repricer.reprice(latest).catch((error: unknown) => {
        this.logger.warn({ paymentId: record.id }, `re-pricing failed: ${(error as Error).message}`);
      });
    }
    this.oldestUnresolved.set(oldestSentAt === undefined ? 0 : Math.max(0, Date.now() - oldestSentAt) / 1000);
    const stale = await this.payments.staleReservations(new Date(Date.now() - STALE_RESERVATION_MS));
    for (const record of stale) {
      if (await this.payments.release(record.id, 'reserved')) {
        this.logger.log({ paymentId: record.id }, 'claim released: its process stopped before any settlement');
      }
    }
  }
}
