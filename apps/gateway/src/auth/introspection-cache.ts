import { hash } from 'node:crypto';
import { KeyIntrospection } from '@rp/contracts';

export interface IntrospectionCacheOptions {
  /** How long an active answer is reused; 0 disables reuse (every request asks). */
  activeTtlMs: number;
  /** How long an unknown, revoked or expired answer is reused. */
  negativeTtlMs?: number;
  /** Entries kept at most; the oldest goes first. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  answer: KeyIntrospection;
  freshUntil: number;
  /** The active answer's `expiresAt`, read once; NaN when it cannot be read (then the key counts as expired). */
  expiresAtMs: number;
}

/**
 * The subscription service's answers about keys, kept in process by sha256 of the key (the key itself is never
 * held). An active answer is reused for `activeTtlMs`, but a key whose `expiresAt` has passed is expired at once,
 * without asking. Concurrent lookups of one key share one call; a failed call is not remembered.
 */
export class IntrospectionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<KeyIntrospection>>();
  private readonly activeTtlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: IntrospectionCacheOptions) {
    this.activeTtlMs = options.activeTtlMs;
    this.negativeTtlMs = options.negativeTtlMs ?? 2000;
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

  /** The answer for `apiKey` (whose fingerprint is `id`): cached, joined to a call in flight, or asked for. */
  async lookup(
    apiKey: string,
    id: string,
    ask: (apiKey: string) => Promise<KeyIntrospection>,
  ): Promise<KeyIntrospection> {
    const known = this.fresh(id);
    if (known) return known;
    const pending = this.inFlight.get(id);
    if (pending) return pending;
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
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const now = this.now();
    if (now >= entry.freshUntil) {
      this.entries.delete(id);
      return undefined;
    }
    return expiredBy(entry, now);
  }

  private remember(id: string, answer: KeyIntrospection): Entry {
    const ttl = answer.active ? this.activeTtlMs : this.negativeTtlMs;
    const entry = {
      answer,
      freshUntil: this.now() + ttl,
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
