import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentStore, StoredOwnerEvent } from '../store/agent-store';
import type { OwnerEvent, OwnerEventBody, OwnerEvents } from './owner-events';

/** Delivered and rejected events are kept this long (what the owner was told, for an operator's look). */
const KEEP_DONE_MS = 30 * 86_400_000;

/**
 * The owner's events are written to the agent's database first and sent from there: an event emitted while the
 * service is down or the agent has no key waits, and goes out once it can. Each keeps its id across retries, so the
 * service takes it once however often it is sent.
 */
export class OwnerOutbox implements OwnerEvents {
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly store: AgentStore,
    private readonly wallet: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async emit(event: OwnerEvent): Promise<void> {
    const { type, ...fields } = event;
    const at = this.now();
    try {
      await this.store.ownerEvents.insert({
        id: `evt-${randomUUID()}`,
        wallet: this.wallet,
        type,
        fields: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as StoredOwnerEvent['fields'],
        occurredAt: new Date(at).toISOString(),
        createdAtMs: at,
        state: 'pending',
        attempts: 0,
      });
    } catch (error) {
      this.logger.warn({ event: type, err: (error as Error).message }, "could not keep an event for the wallet's owner");
      return;
    }
    for (const listener of this.listeners) listener();
  }

  /** Called after every event written (the sender sends at once). */
  onEmitted(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The oldest events not yet taken by the service, in the order they happened. */
  pending(limit: number): Promise<StoredOwnerEvent[]> {
    return this.store.ownerEvents.find(
      { wallet: this.wallet, state: 'pending' },
      { sort: { field: 'createdAtMs', direction: 'asc' }, limit },
    );
  }

  async delivered(event: StoredOwnerEvent): Promise<void> {
    await this.store.ownerEvents.updateOne(
      { id: event.id },
      { set: { state: 'delivered', deliveredAt: new Date(this.now()).toISOString() }, inc: { attempts: 1 } },
    );
  }

  /** The service refused the event itself (a 4xx naming a field): it is not sent again. */
  async rejected(event: StoredOwnerEvent, reason: string): Promise<void> {
    await this.store.ownerEvents.updateOne(
      { id: event.id },
      { set: { state: 'rejected', lastError: reason }, inc: { attempts: 1 } },
    );
  }

  async attemptFailed(event: StoredOwnerEvent, reason: string): Promise<void> {
    await this.store.ownerEvents.updateOne({ id: event.id }, { set: { lastError: reason }, inc: { attempts: 1 } });
  }

  /** Forgets delivered and rejected events older than 30 days. */
  async prune(): Promise<number> {
    const before = this.now() - KEEP_DONE_MS;
    const [delivered, rejected] = await Promise.all(
      (['delivered', 'rejected'] as const).map((state) =>
        this.store.ownerEvents.delete({ wallet: this.wallet, state, createdAtMs: { $lt: before } }),
      ),
    );
    return delivered + rejected;
  }
}

/** The request body of a stored event: its fields, its id as `eventId`, the wallet and the time. */
export function bodyOf(event: StoredOwnerEvent): OwnerEventBody {
  return {
    ...event.fields,
    eventId: event.id,
    type: event.type as OwnerEventBody['type'],
    walletAddress: event.wallet,
    occurredAt: event.occurredAt,
  } as OwnerEventBody;
}
