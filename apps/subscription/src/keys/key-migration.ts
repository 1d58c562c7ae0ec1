import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { PaymentRepository } from '../payment/payment.repository';
import { KeyRepository, LiveKeyExistsError } from './key.repository';

/**
 * Brings keys stored before the one-live-key rule up to date, once per start, before the service answers (ADR 015).
 * Idempotent, and safe on several replicas at once (each write is the same or conditional): each payment with live
 * keys keeps one, marked as its live key: the one it names as its latest (`keyId`), else the newest; any other is
 * revoked (only possible where a driver let two collections interleave before).
 */
@Injectable()
export class KeyMigration implements OnApplicationBootstrap {
  private readonly logger = new Logger(KeyMigration.name);

  constructor(
    private readonly keys: KeyRepository,
    private readonly payments: PaymentRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { marked, revoked } = await this.markLiveKeys();
    if (marked + revoked > 0) this.logger.log({ marked, revoked }, 'live keys of payments marked');
  }

  /** Returns how many keys were marked live and how many revoked. */
  async markLiveKeys(): Promise<{ marked: number; revoked: number }> {
    const payments = new Set(
      (await this.keys.liveWithoutMark()).flatMap((key) => (key.paymentId ? [key.paymentId] : [])),
    );
    let marked = 0;
    let revoked = 0;
    for (const paymentId of payments) {
      const live = await this.keys.liveForPayment(paymentId);
      const named = (await this.payments.find(paymentId))?.keyId;
      const keep = live.find((key) => key.livePaymentId) ?? live.find((key) => key.id === named) ?? live.at(-1);
      if (!keep) continue;
      const now = new Date();
      for (const key of live) {
        if (key.id !== keep.id && (await this.keys.revokeLive(key.id, now))) revoked += 1;
      }
      if (keep.livePaymentId) continue;
      try {
        if (await this.keys.markLive(keep.id, paymentId)) marked += 1;
      } catch (error) {
        // A key issued for the payment meanwhile (a buyer collecting it right now) is the live one.
        if (!(error instanceof LiveKeyExistsError)) throw error;
        if (await this.keys.revokeLive(keep.id, now)) revoked += 1;
      }
    }
    return { marked, revoked };
  }
}
