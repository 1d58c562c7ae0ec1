import { xdr } from '@stellar/stellar-sdk';

/** One ledger entry as the sandbox keeps it: the real XDR data plus its bookkeeping. */
export interface StoredEntry {
  readonly data: xdr.LedgerEntryData;
  readonly lastModified: number;
  /** Soroban entries only: the last ledger the entry is live in (its TTL entry's value). */
  readonly liveUntil?: number;
}

/** The key every entry is filed under: its `LedgerKey` in base64 XDR, exactly what `getLedgerEntries` receives. */
export type EntryKey = string;

export function entryKeyOf(key: xdr.LedgerKey): EntryKey {
  return key.toXDR('base64');
}

/** Something entries can be read from: the committed ledger, or a transaction's view of it. */
export interface EntryReader {
  get(key: EntryKey): StoredEntry | undefined;
}

/** The committed state of the sandbox ledger. */
export class LedgerState implements EntryReader {
  private readonly entries = new Map<EntryKey, StoredEntry>();

  get(key: EntryKey): StoredEntry | undefined {
    return this.entries.get(key);
  }

  put(key: EntryKey, entry: StoredEntry): void {
    this.entries.set(key, entry);
  }

  delete(key: EntryKey): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<StoredEntry> {
    return this.entries.values();
  }

  clear(): void {
    this.entries.clear();
  }
}

/** What a change did to one entry, for transaction meta: `before` absent = created, `after` absent = removed. */
export interface EntryChange {
  readonly key: EntryKey;
  readonly before: StoredEntry | undefined;
  readonly after: StoredEntry | undefined;
}

/**
 * A transaction's copy-on-write view of the ledger. It records every key read and written (the footprint a
 * simulation reports and an application checks) and commits all of its writes at once, or none.
 */
export class StateOverlay implements EntryReader {
  private readonly writes = new Map<EntryKey, StoredEntry | null>();
  private readonly readKeys = new Set<EntryKey>();

  constructor(private readonly base: EntryReader) {}

  get(key: EntryKey): StoredEntry | undefined {
    this.readKeys.add(key);
    if (this.writes.has(key)) return this.writes.get(key) ?? undefined;
    return this.base.get(key);
  }

  put(key: EntryKey, entry: StoredEntry): void {
    this.writes.set(key, entry);
  }

  delete(key: EntryKey): void {
    this.writes.set(key, null);
  }

  /** Keys read but not written, and keys written: the footprint's read-only and read-write sets. */
  footprint(): { readOnly: EntryKey[]; readWrite: EntryKey[] } {
    const readWrite = [...this.writes.keys()];
    const readOnly = [...this.readKeys].filter((key) => !this.writes.has(key));
    return { readOnly, readWrite };
  }

  changes(): EntryChange[] {
    return [...this.writes.entries()].map(([key, after]) => ({
      key,
      before: this.base.get(key),
      after: after ?? undefined,
    }));
  }

  commitTo(target: LedgerState): void {
    for (const [key, entry] of this.writes) {
      if (entry) target.put(key, entry);
      else target.delete(key);
    }
  }
}
