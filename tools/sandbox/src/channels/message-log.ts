export type Channel = 'telegram' | 'webhook' | 'email';
export type Outcome = 'delivered' | 'rejected';

/** A file part of a multipart message, as the stand-in received it (its bytes are not kept, their digest is). */
export interface ReceivedFile {
  /** The form field (`files[0]`, `document`). */
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  /** SHA-256 of the bytes received, hex. */
  readonly sha256: string;
}

export interface LogEntry {
  /** Sequential decimal string; never reused, not even after `clear()`, so a saved id stays a valid mark. */
  readonly id: string;
  readonly channel: Channel;
  /** Telegram chat id as sent (`123`, `@channel`), hook path (`discord/1/tok`), or comma-joined envelope recipients. */
  readonly destination: string;
  readonly receivedAt: string;
  /** Plain text as a reader would see it (markup parsed away, embed/block texts joined). */
  readonly text: string;
  readonly payload: unknown;
  readonly outcome: Outcome;
  /** HTTP status or SMTP reply code that the stand-in answered with. */
  readonly status: number;
  /** Who sent it, as the channel knows them: `bot:<id>` (never the token), the hook kind, or the SMTP user. */
  readonly source?: string;
  /** File parts of a multipart message (Discord `files[n]`), when it had any. */
  readonly files?: readonly ReceivedFile[];
}

export type NewLogEntry = Omit<LogEntry, 'id' | 'receivedAt'>;

export interface LogFilter {
  channel?: Channel;
  /** Exact destination; for email also any single recipient of the list. */
  destination?: string;
  outcome?: Outcome;
  /** Only entries after this id (exclusive). */
  since?: string;
  match?: (entry: LogEntry) => boolean;
}

export interface MessageLogOptions {
  capacity?: number;
  now?: () => number;
}

interface Waiter {
  filter: LogFilter;
  resolve: (entry: LogEntry) => void;
}

/** In-memory record of every message the channel stand-ins received, newest last, capped. */
export class MessageLog {
  private readonly entries: LogEntry[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<(entry: LogEntry) => void>();
  private readonly capacity: number;
  /**
   * Entries past the capacity that may wait before they are dropped, all at once: dropping the oldest entry at each
   * new one moved the whole array every time (a full log under load spent more CPU there than in parsing messages).
   */
  private readonly slack: number;
  private readonly now: () => number;
  private nextId = 1;

  constructor(options: MessageLogOptions = {}) {
    this.capacity = options.capacity ?? 10_000;
    this.slack = Math.max(16, Math.ceil(this.capacity / 8));
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.retained().length;
  }

  /** Id of the newest entry ever recorded ('0' before the first): a mark for `since`. */
  get lastId(): string {
    return String(this.nextId - 1);
  }

  record(entry: NewLogEntry): LogEntry {
    const full: LogEntry = { id: String(this.nextId++), receivedAt: new Date(this.now()).toISOString(), ...entry };
    this.entries.push(full);
    if (this.entries.length > this.capacity + this.slack) {
      this.entries.splice(0, this.entries.length - this.capacity);
    }
    for (const waiter of this.waiters) {
      if (matches(full, waiter.filter)) {
        this.waiters.delete(waiter);
        waiter.resolve(full);
      }
    }
    for (const listener of this.listeners) listener(full);
    return full;
  }

  /** Oldest first. */
  list(filter: LogFilter = {}): LogEntry[] {
    return this.retained().filter((entry) => matches(entry, filter));
  }

  latest(count: number): LogEntry[] {
    return this.retained().slice(-count).reverse();
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Called for every new entry (e.g. to push to the sandbox page); returns the unsubscribe function. */
  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The oldest entry matching `filter` (after `filter.since` when given), now or as soon as it arrives.
   * Without `since` every retained entry counts, so pass `since: log.lastId` taken before acting.
   */
  waitFor(filter: LogFilter = {}, timeoutMs = 5_000): Promise<LogEntry> {
    const existing = this.retained().find((entry) => matches(entry, filter));
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        filter,
        resolve: (entry) => {
          clearTimeout(timer);
          resolve(entry);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`MessageLog.waitFor: nothing matching ${describe(filter)} within ${timeoutMs} ms`));
      }, timeoutMs);
      // A forgotten waiter must not keep a test process or the sandbox alive.
      timer.unref();
      this.waiters.add(waiter);
    });
  }

  /** The newest `capacity` entries: the log as it is seen. */
  private retained(): LogEntry[] {
    return this.entries.length > this.capacity ? this.entries.slice(-this.capacity) : this.entries;
  }
}

export function matches(entry: LogEntry, filter: LogFilter): boolean {
  if (filter.channel !== undefined && entry.channel !== filter.channel) return false;
  if (filter.outcome !== undefined && entry.outcome !== filter.outcome) return false;
  if (filter.since !== undefined && Number(entry.id) <= Number(filter.since)) return false;
  if (filter.destination !== undefined && entry.destination !== filter.destination) {
    const recipients = entry.channel === 'email' ? entry.destination.split(',').map((r) => r.trim()) : [];
    if (!recipients.includes(filter.destination)) return false;
  }
  return filter.match ? filter.match(entry) : true;
}

function describe(filter: LogFilter): string {
  const { match, ...rest } = filter;
  return JSON.stringify(rest) + (match ? ' and a predicate' : '');
}
