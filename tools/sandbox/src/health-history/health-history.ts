import type { LogEntry, MessageLog } from '../channels';
import { readPositions, type PositionView } from '../control/sandbox-dump';
import type { SandboxDirectory } from '../control/directory';
import type { ClosedLedger } from '../ledger/ledger-history';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { messageSubject, names, namesAPool } from './message-subject';

/** One reading of a position's health factor (a plain number: the chart's, not the pool's exact figure). */
export interface HealthPoint {
  readonly ledger: number;
  /** Unix seconds with milliseconds, when the ledger closed (or the message arrived). */
  readonly at: number;
  readonly healthFactor: number;
}

/**
 * Something that happened to the position: an `alert` (a risk alert a channel stand-in received that names the
 * wallet, and its pool when it names one), a `notice` (any other message naming them: an agent's events), or a
 * `close` (a transaction of the wallet itself after which its debt in the pool went down: a repay, a close or a
 * deleverage).
 */
export interface HealthMarker {
  readonly kind: 'alert' | 'notice' | 'close';
  readonly ledger: number;
  readonly at: number;
  /** The last health factor read before it: where the chart draws it. */
  readonly healthFactor: number | null;
  readonly title: string;
  readonly txHash?: string;
  readonly key: string;
}

export interface PositionSeries {
  readonly pool: string;
  readonly poolName: string;
  readonly account: string;
  readonly label: string;
  readonly points: readonly HealthPoint[];
  readonly markers: readonly HealthMarker[];
}

/** The level bounds the chart draws (DECISIONS.md's defaults; a wallet's own live in the notifications service). */
export const LEVEL_BOUNDS = { medium: 1.5, high: 1.25, critical: 1.1, liquidation: 1 } as const;

export interface HealthHistoryView {
  readonly ledger: number;
  readonly bounds: typeof LEVEL_BOUNDS;
  readonly positions: readonly PositionSeries[];
}

export interface HealthHistoryLimits {
  /** Points kept per position (the oldest go first). */
  readonly points: number;
  /** Markers kept per position. */
  readonly markers: number;
  /** Positions followed (the one updated longest ago goes first). */
  readonly positions: number;
  /** A ledger without transactions is read only when this long passed since the last reading. */
  readonly quietReadMs: number;
}

export const DEFAULT_LIMITS: HealthHistoryLimits = { points: 720, markers: 60, positions: 100, quietReadMs: 1000 };

interface Track extends PositionSeries {
  readonly points: HealthPoint[];
  readonly markers: HealthMarker[];
  /** dTokens per reserve symbol at the last reading: a drop is a repay. */
  debt: Readonly<Record<string, string>>;
  touched: number;
}

/**
 * Each position's health factor over time, kept by the sandbox itself: read at ledger closes with the pool's own
 * math (every ledger that applied transactions, otherwise at most once per `quietReadMs`), with alert markers from
 * the channel stand-ins' message log and close markers from the wallet's own transactions. Memory is bounded by
 * `limits`.
 */
export class HealthHistory {
  private readonly tracks = new Map<string, Track>();
  private lastReadAt = 0;

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly directory: SandboxDirectory,
    log: MessageLog,
    private readonly limits: HealthHistoryLimits = DEFAULT_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    ledger.on('close', (closed) => this.onLedger(closed));
    log.subscribe((entry) => this.onMessage(entry));
  }

  view(): HealthHistoryView {
    return { ledger: this.ledger.latest.sequence, bounds: LEVEL_BOUNDS, positions: [...this.tracks.values()].map(series) };
  }

  clear(): void {
    this.tracks.clear();
  }

  private onLedger(closed: ClosedLedger): void {
    const now = this.now();
    if (closed.transactions.length === 0 && now - this.lastReadAt < this.limits.quietReadMs) return;
    this.lastReadAt = now;
    const at = now / 1000;
    const seen = new Set<string>();
    for (const position of readPositions(this.ledger, this.directory)) {
      const key = `${position.pool}:${position.account}`;
      seen.add(key);
      const track = this.tracks.get(key) ?? (position.healthFactor === null ? undefined : this.follow(key, position));
      if (!track) continue;
      this.noteRepay(track, closed, position.liabilities, at);
      track.debt = position.liabilities;
      if (position.healthFactor !== null) {
        push(track.points, { ledger: closed.sequence, at, healthFactor: Number(position.healthFactor) / 1e7 }, this.limits.points);
        track.touched = now;
      }
    }
    // A position that is gone (closed in full) has no reading, but its last repay is still news.
    for (const [key, track] of this.tracks) {
      if (seen.has(key)) continue;
      this.noteRepay(track, closed, {}, at);
      track.debt = {};
    }
  }

  private follow(key: string, position: PositionView): Track {
    if (this.tracks.size >= this.limits.positions) {
      const oldest = [...this.tracks].sort(([, a], [, b]) => a.touched - b.touched)[0];
      if (oldest) this.tracks.delete(oldest[0]);
    }
    const track: Track = {
      pool: position.pool,
      poolName: position.poolName,
      account: position.account,
      label: position.label,
      points: [],
      markers: [],
      debt: position.liabilities,
      touched: this.now(),
    };
    this.tracks.set(key, track);
    return track;
  }

  /** A drop of any debt in a ledger where the wallet itself had a transaction applied: a close marker. */
  private noteRepay(track: Track, closed: ClosedLedger, debt: Readonly<Record<string, string>>, at: number): void {
    const repaid = Object.entries(track.debt).some(([symbol, before]) => BigInt(debt[symbol] ?? '0') < BigInt(before));
    if (!repaid) return;
    const own = closed.transactions
      .map((hash) => this.ledger.transaction(hash))
      .find((tx) => tx?.status === 'SUCCESS' && tx.source === track.account);
    if (!own) return;
    const cleared = Object.values(debt).every((amount) => amount === '0');
    push(
      track.markers,
      {
        kind: 'close',
        ledger: closed.sequence,
        at,
        healthFactor: lastFactor(track),
        title: cleared ? 'position closed: debt repaid in full' : 'debt reduced (partial close or repay)',
        txHash: own.hash,
        key: own.hash,
      },
      this.limits.markers,
    );
  }

  private onMessage(entry: LogEntry): void {
    if (entry.outcome !== 'delivered') return;
    const subject = messageSubject(entry);
    const poolNamed = namesAPool(entry);
    for (const track of this.tracks.values()) {
      if (!names(entry, track.account) || (poolNamed && !names(entry, track.pool))) continue;
      if (track.markers.some((marker) => marker.key === subject.key)) continue;
      push(
        track.markers,
        {
          kind: subject.kind,
          ledger: this.ledger.latest.sequence,
          at: Date.parse(entry.receivedAt) / 1000,
          healthFactor: lastFactor(track),
          title: subject.title,
          key: subject.key,
        },
        this.limits.markers,
      );
    }
  }
}

function lastFactor(track: Track): number | null {
  return track.points[track.points.length - 1]?.healthFactor ?? null;
}

function push<T>(list: T[], item: T, limit: number): void {
  list.push(item);
  if (list.length > limit) list.splice(0, list.length - limit);
}

function series(track: Track): PositionSeries {
  const { pool, poolName, account, label, points, markers } = track;
  return { pool, poolName, account, label, points: [...points], markers: [...markers] };
}
