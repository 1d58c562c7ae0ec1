import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { RiskAlert } from '@rp/contracts';
import { NotificationsSettings } from '../settings/notifications-settings';
import type { IntakeEntry, IntakeOptions, IntakeResult } from './alert';
import { AlertIntake } from './alert-intake.service';

interface Waiting {
  entry: IntakeEntry;
  resolve: (result: IntakeResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces alerts that arrive one per call (the inbound webhook's requests) into micro-batches for the intake
 * (ADR 028): a batch goes when it holds `NOTIFICATIONS_INTAKE_BATCH_MAX` alerts or `NOTIFICATIONS_INTAKE_BATCH_WAIT_MS`
 * after its first one, whichever comes first, and each caller gets its own alert's result. Batches do not wait for
 * each other: one being taken in does not hold back the next.
 */
@Injectable()
export class IntakeBatcher implements OnApplicationShutdown {
  private waiting: Waiting[] = [];
  private timer?: NodeJS.Timeout;
  private readonly waitMs: number;
  private readonly max: number;

  constructor(
    private readonly intake: AlertIntake,
    settings: NotificationsSettings,
  ) {
    this.waitMs = settings.NOTIFICATIONS_INTAKE_BATCH_WAIT_MS;
    this.max = settings.NOTIFICATIONS_INTAKE_BATCH_MAX;
  }

  /** The alert's result, once the batch it joined was taken in (or that batch's error). */
  submit(alert: RiskAlert, options: IntakeOptions): Promise<IntakeResult> {
    return new Promise<IntakeResult>((resolve, reject) => {
      this.waiting.push({ entry: { alert, options }, resolve, reject });
      if (this.waiting.length >= this.max) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.waitMs);
    });
  }

  onApplicationShutdown(): void {
    this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.intake.submitBatch(batch.map((w) => w.entry)).then(
      (outcomes) => outcomes.forEach((outcome, i) => batch[i].resolve(outcome.result)),
      (error: unknown) => batch.forEach((w) => w.reject(error)),
    );
  }
}
