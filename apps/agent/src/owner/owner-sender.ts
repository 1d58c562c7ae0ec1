import type { Logger } from 'pino';
import type { AgentMetrics } from '../metrics/agent-metrics';
import type { OwnerNotifications } from './owner-notifications';
import { type OwnerOutbox, bodyOf } from './owner-outbox';

/** Events sent per round, oldest first. */
const BATCH = 50;
/** Longest wait between rounds while the service is down. */
const MAX_BACKOFF_MS = 60_000;

/** Where the agent's API key comes from (the subscription keeper). */
export interface KeySource {
  apiKey(): string | undefined;
}

/**
 * Sends the outbox to the service: with a valid key, it first registers the owner's channels as the wallet's
 * notification configurations (again after each new key), then posts the pending events oldest first. An event
 * the service has taken is marked delivered; one it refuses for what it says is marked rejected and logged; when
 * the service is down or the key is refused the round stops, the events wait, and the next round comes later
 * (doubling up to a minute). One round at a time; a new event starts one at once.
 */
export class OwnerEventSender {
  private registeredWith?: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private started = false;
  private stopped = false;
  private backoffMs: number;
  private warnedDown = false;

  constructor(
    private readonly outbox: OwnerOutbox,
    private readonly keys: KeySource,
    private readonly service: OwnerNotifications,
    private readonly logger: Logger,
    private readonly metrics: AgentMetrics | undefined,
    private readonly intervalMs: number,
  ) {
    this.backoffMs = intervalMs;
    outbox.onEmitted(() => this.nudge());
  }

  start(): void {
    this.started = true;
    void this.outbox.prune().catch(() => undefined);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** A round now (or right after the one running). */
  nudge(): void {
    if (!this.started || this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** One round; resolves when it is over (tests wait on it). */
  deliver(): Promise<void> {
    this.running ??= this.round()
      .catch((error: unknown) => this.logger.warn({ err: (error as Error).message }, "owner's events: round failed"))
      .finally(() => {
        this.running = undefined;
        this.schedule(this.again ? 0 : this.backoffMs);
        this.again = false;
      });
    return this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    if (!this.started || this.stopped) return;
    this.timer = setTimeout(() => void this.deliver(), delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    const apiKey = this.keys.apiKey();
    if (!apiKey) return; // no key: the events wait for one
    if (this.registeredWith !== apiKey && !(await this.register(apiKey))) return this.down('registration');
    const pending = await this.outbox.pending(BATCH);
    for (const event of pending) {
      const answer = await this.service.send(apiKey, bodyOf(event));
      if (answer.kind === 'taken') {
        await this.outbox.delivered(event);
        this.metrics?.ownerEvent(event.type, 'delivered');
        continue;
      }
      if (answer.kind === 'refused') {
        await this.outbox.rejected(event, answer.detail);
        this.metrics?.ownerEvent(event.type, 'rejected');
        this.logger.warn({ event: event.type, id: event.id, answer: answer.detail }, "the service refused an owner's event");
        continue;
      }
      await this.outbox.attemptFailed(event, answer.kind === 'key_refused' ? '401' : answer.detail);
      if (answer.kind === 'key_refused') this.registeredWith = undefined;
      return this.down(answer.kind === 'key_refused' ? 'key refused' : answer.detail);
    }
    this.up();
  }

  /** Registers the channels set; false when the service could not be reached (a refused channel is only logged). */
  private async register(apiKey: string): Promise<boolean> {
    const answers = await this.service.register(apiKey);
    if (answers.some(({ answer }) => answer.kind === 'unavailable' || answer.kind === 'key_refused')) return false;
    for (const { channel, answer } of answers) {
      if (answer.kind === 'refused') {
        this.logger.warn({ channel, answer: answer.detail }, "the service refused an owner's channel: check its NOTIFY_ setting");
      }
    }
    this.registeredWith = apiKey;
    this.logger.info({ channels: answers.map(({ channel }) => channel) }, "owner's channels registered for the wallet");
    return true;
  }

  private down(reason: string): void {
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    if (!this.warnedDown) this.logger.warn({ reason }, "owner's events wait: the service did not take them");
    this.warnedDown = true;
  }

  private up(): void {
    this.backoffMs = this.intervalMs;
    if (this.warnedDown) this.logger.info("owner's events: the service takes them again");
    this.warnedDown = false;
  }
}
