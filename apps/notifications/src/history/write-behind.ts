export interface WriteBehindOptions {
  /** Written once nothing new came for this long... */
  quietMs: number;
  /** ...or once the oldest waiting item has waited this long... */
  maxWaitMs: number;
  /** ...or at once when this many wait: then the caller waits for the write (back-pressure). */
  maxItems: number;
}

/**
 * Gathers items and writes them together, behind the callers: one write for everything that came in close together
 * (a round's batch jobs in one process, a burst of deliveries), after the burst, not inside it. Writes run one after
 * another; `write` must not throw (it logs and counts its own failures).
 */
export class WriteBehind<T> {
  private pending: T[] = [];
  private oldest?: number;
  private quiet?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: WriteBehindOptions,
  ) {}

  /** Takes items in; resolves at once, unless too many wait (then once they are written). */
  add(items: readonly T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    for (const item of items) this.pending.push(item);
    this.oldest ??= Date.now();
    if (this.pending.length >= this.options.maxItems) return this.flush();
    if (Date.now() - this.oldest >= this.options.maxWaitMs) {
      void this.flush();
      return Promise.resolve();
    }
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => void this.flush(), this.options.quietMs);
    return Promise.resolve();
  }

  /** Writes what waits now; resolves once it (and any write before it) is done. */
  flush(): Promise<void> {
    clearTimeout(this.quiet);
    this.quiet = undefined;
    const batch = this.pending;
    this.pending = [];
    this.oldest = undefined;
    this.writing = this.writing.then(() => (batch.length > 0 ? this.write(batch) : undefined));
    return this.writing;
  }
}
