import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { RedisLeases } from '@rp/platform';
import { NotificationsSettings } from '../settings/notifications-settings';
import { HealthRollups } from './health-rollups';

/** How often the janitor looks for closed buckets. */
const JANITOR_INTERVAL_MS = 60_000;
/** One janitor at a time across replicas; a run that outlives this is given up by its lease. */
const JANITOR_LEASE_MS = 10 * 60_000;

/** Role `monitor`: rolls the health series up every minute, one replica at a time (a Redis lease). */
@Injectable()
export class HistoryJanitor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(HistoryJanitor.name);
  private readonly owner = randomUUID();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly rollups: HealthRollups,
    private readonly leases: RedisLeases,
    private readonly config: NotificationsSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.run(), JANITOR_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One run, unless another replica's (or this one's) is under way. */
  run(now = new Date()): Promise<void> {
    this.running ??= this.runOnce(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async runOnce(now: Date): Promise<void> {
    const key = `${this.config.keyPrefix()}history:janitor`;
    try {
      if (!(await this.leases.acquire(key, this.owner, JANITOR_LEASE_MS))) return;
      try {
        const written = await this.rollups.rollUp(now);
        if (Object.values(written).some((n) => n > 0))
          this.logger.log(`health roll-ups written: ${JSON.stringify(written)}`);
      } finally {
        await this.leases.release(key, this.owner);
      }
    } catch (error) {
      this.logger.warn(`health roll-up failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
