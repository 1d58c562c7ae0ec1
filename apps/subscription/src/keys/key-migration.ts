import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { keyAccount, unnamedPartnerAccount, walletAccount } from '@rp/contracts';
import { PaymentRepository } from '../payment/payment.repository';
import { type KeyRecord, KeyRepository, LiveKeyExistsError } from './key.repository';

const BATCH = 500;

/**
 * Brings keys stored before accounts and the one-live-key rule up to date, once per start, before the service
 * answers (ADR 015). Idempotent, and safe on several replicas at once (each write is the same or conditional):
 *
 * 1. A key without an account takes the one proven for it: a bought key, its payment's payer (`wallet:<G...>`); a
 *    partner key, itself (`partner:key-<keyId>`: no operator named it); a bought key whose payment cannot be
 *    found, itself (`key:<keyId>`). The email is never used.
 * 2. Each payment with live keys keeps one, marked as its live key: the one it names as its latest (`keyId`), else
 *    the newest; any other is revoked (only possible where a driver let two collections interleave before).
 */
@Injectable()
export class KeyMigration implements OnApplicationBootstrap {
  private readonly logger = new Logger(KeyMigration.name);

  constructor(
    private readonly keys: KeyRepository,
    private readonly payments: PaymentRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const accounts = await this.giveAccounts();
    const { marked, revoked } = await this.markLiveKeys();
    if (accounts + marked + revoked > 0) {
      this.logger.log({ accounts, marked, revoked }, 'keys brought up to date: accounts given, live keys marked');
    }
  }

  /** Step 1; returns how many keys were given an account. */
  async giveAccounts(): Promise<number> {
    let given = 0;
    for (;;) {
      const batch = await this.keys.withoutAccount(BATCH);
      if (batch.length === 0) return given;
      for (const key of batch) {
        await this.keys.setAccount(key.id, await this.provenAccount(key), key.email.toLowerCase());
        given += 1;
      }
    }
  }

  private async provenAccount(key: KeyRecord): Promise<string> {
    if (!key.paymentId) return unnamedPartnerAccount(key.id);
    const payment = await this.payments.find(key.paymentId);
    if (payment) return walletAccount(payment.payer);
    this.logger.error({ keyId: key.id }, 'a bought key whose payment is missing: it is an account of its own');
    return keyAccount(key.id);
  }

  /** Step 2. */
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
