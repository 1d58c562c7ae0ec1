import { hash } from 'node:crypto';
import { KeyIntrospection } from '@rp/contracts';

export interface IntrospectionCacheOptions {
  /** How long an active answer is reused; 0 disables reuse (every request asks). */
  activeTtlMs: number;
  /** How long an unknown, revoked or expired answer is reused. */
  negativeTtlMs?: number;
  /**
   * An active answer this close to the end of its `activeTtlMs` is asked for again in the background by the next
   * lookup, which is still answered from it; a fifth of the TTL unless set.
   */
  refreshAheadMs?: number;
  /** Entries kept at most; the oldest goes first. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  answer: KeyIntrospection;
  freshUntil: number;
  /** From when the next lookup asks again in the background (active answers only; Infinity for others). */
  refreshFrom: number;
  /** The active answer's `expiresAt`, read once; NaN when it cannot be read (then the key counts as expired). */
  expiresAtMs: number;
}

/** Asks the subscription service about a key. */
export type Ask = (apiKey: string) => Promise<KeyIntrospection>;

/**
 * The subscription service's answers about keys, kept in process by sha256 of the key (the key itself is never
 * held). An active answer is reused for `activeTtlMs`, but a key whose `expiresAt` has passed is expired at once,
 * without asking. Concurrent lookups of one key share one call; a failed call is not remembered. A key still in use
 * near the end of its answer's life is asked about again in the background (refresh-ahead): its calls keep being
 * answered from the cache meanwhile, never past `activeTtlMs`, and never wait for the re-check. A revocation is seen
 * as soon as before, or sooner.
 */
export class IntrospectionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<KeyIntrospection>>();
  private readonly activeTtlMs: number;
  private readonly negativeTtlMs: number;
  private readonly refreshAheadMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: IntrospectionCacheOptions) {
    this.activeTtlMs = options.activeTtlMs;
    this.negativeTtlMs = options.negativeTtlMs ?? 2000;
    this.refreshAheadMs = options.refreshAheadMs ?? options.activeTtlMs / 5;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached answer for a key's fingerprint while it is fresh, expiry applied; `undefined`: ask the service. */
  cached(id: string): KeyIntrospection | undefined {
    return this.fresh(id);
  }

  /**
   * The cached answer about `apiKey` (whose fingerprint is `id`) while it is fresh, expiry applied, without waiting;
   * `undefined`: ask the service. An active answer in its last `refreshAheadMs` is asked for again in the
   * background (`ask` is called then only, one call at a time per key); a failed re-check is forgotten, and the
   * answer is served until its TTL ends as before.
   */
  cachedRefreshing(apiKey: string, id: string, ask: Ask): KeyIntrospection | undefined {
    const now = this.now();
    const entry = this.freshEntry(id, now);
    if (!entry) return undefined;
    if (now >= entry.refreshFrom && now < entry.expiresAtMs && !this.inFlight.has(id)) {
      this.ask(apiKey, id, ask).catch(ignore);
    }
    return expiredBy(entry, now);
  }

  /** The answer for `apiKey` (whose fingerprint is `id`): cached, joined to a call in flight, or asked for. */
  async lookup(apiKey: string, id: string, ask: Ask): Promise<KeyIntrospection> {
    const known = this.cachedRefreshing(apiKey, id, ask);
    if (known) return known;
    return this.inFlight.get(id) ?? this.ask(apiKey, id, ask);
  }

  /** One call about the key, shared by every lookup that comes while it is out; its answer is remembered. */
  private ask(apiKey: string, id: string, ask: Ask): Promise<KeyIntrospection> {
    const call = ask(apiKey)
      .then((answer) => {
        const entry = this.remember(id, answer);
        return expiredBy(entry, this.now());
      })
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, call);
    return call;
  }

  private fresh(id: string): KeyIntrospection | undefined {
    const now = this.now();
    const entry = this.freshEntry(id, now);
    return entry && expiredBy(entry, now);
  }

  /** The entry of `id` while its TTL lasts; one past it is dropped. */
  private freshEntry(id: string, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry !== undefined && now >= entry.freshUntil) {
      this.entries.delete(id);
      return undefined;
    }
    return entry;
  }

  private remember(id: string, answer: KeyIntrospection): Entry {
    const ttl = answer.active ? this.activeTtlMs : this.negativeTtlMs;
    const now = this.now();
    const entry = {
      answer,
      freshUntil: now + ttl,
      refreshFrom: answer.active ? now + ttl - this.refreshAheadMs : Infinity,
      expiresAtMs: answer.active ? Date.parse(answer.expiresAt) : NaN,
    };
    if (ttl <= 0) return entry;
    this.entries.delete(id);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(id, entry);
    return entry;
  }
}

/** A re-check in the background that failed: forgotten (the asker logged it), the cached answer stands. */
function ignore(): undefined {
  return undefined;
}

/** An active answer whose `expiresAt` has passed (or is unreadable) is an expired key. */
function expiredBy(entry: Entry, now: number): KeyIntrospection {
  const { answer } = entry;
  if (answer.active && !(now < entry.expiresAtMs)) {
    return { active: false, reason: 'expired', expiresAt: answer.expiresAt };
  }
  return answer;
}

/** The cache's key for an API key: its sha256, so the key itself is never held. */
export function fingerprint(apiKey: string): string {
  // One-shot: no Hash object per call (the gateway fingerprints every keyed request).
  return hash('sha256', apiKey, 'hex');
}
