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

/** A position (as the page's Positions table names it) and its readings. */
export interface PositionSeries extends Pick<PositionView, 'pool' | 'poolName' | 'account' | 'label'> {
  readonly points: readonly HealthPoint[];
  readonly markers: readonly HealthMarker[];
}

/** The level bounds the chart draws (DECISIONS.md's defaults; a wallet's own live in the notifications service). */
export const LEVEL_BOUNDS = { medium: 1.5, high: 1.25, critical: 1.1, liquidation: 1 } as const;

export interface HealthHistoryView {
  readonly ledger: number;
  readonly bounds: typeof LEVEL_BOUNDS;
  readonly positions: readonly PositionSeries[];
  /** Why the last reading failed, when it did (the chart keeps what it had; the ledger closes regardless). */
  readonly readError?: string;
}

export interface HealthHistoryLimits {
  /** Points kept per position (the oldest go first). */
  readonly points: number;
  /** Markers kept per position. */
  readonly markers: number;
  /** Positions followed (the one updated longest ago goes first). */
  readonly positions: number;
  /**
   * Every position is read at most this often (wall time), off the ledger's close, and never more than a twentieth
   * of the time; 0 reads at every close, inside it (tests).
   */
  readonly readIntervalMs: number;
}

export const DEFAULT_LIMITS: HealthHistoryLimits = { points: 720, markers: 60, positions: 100, readIntervalMs: 1000 };

interface Track extends PositionSeries {
  readonly points: HealthPoint[];
  readonly markers: HealthMarker[];
  /** dTokens per reserve symbol at the last reading: a drop is a repay. */
  debt: Readonly<Record<string, string>>;
  touched: number;
}

/**
 * Each position's health factor over time, kept by the sandbox itself with the pool's own math: every position
 * read at most once per `readIntervalMs` after ledger closes (a timer, so a close stays as fast as it was), and a
 * followed wallet that had a transaction applied read at that ledger's close (so its repay is marked at its own
 * ledger, with its transaction); alert markers from the channel stand-ins' message log. Memory is bounded by
 * `limits`.
 */
export class HealthHistory {
  private readonly tracks = new Map<string, Track>();
  private lastReadAt = 0;
  private lastReadCostMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private readError: string | undefined;

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
    return {
      ledger: this.ledger.latest.sequence,
      bounds: LEVEL_BOUNDS,
      positions: [...this.tracks.values()].map(series),
      ...(this.readError ? { readError: this.readError } : {}),
    };
  }

  clear(): void {
    this.tracks.clear();
  }

  private onLedger(closed: ClosedLedger): void {
    const followed = new Set([...this.tracks.values()].map((track) => track.account));
    const own = new Map<string, string>();
    for (const hash of closed.transactions) {
      const tx = this.ledger.transaction(hash);
      if (tx?.status === 'SUCCESS' && followed.has(tx.source) && !own.has(tx.source)) own.set(tx.source, hash);
    }
    if (own.size > 0) this.read(closed.sequence, own, new Set(own.keys()));
    if (this.limits.readIntervalMs === 0) return this.readAll();
    if (this.timer) return;
    const spacing = Math.max(this.limits.readIntervalMs, 20 * this.lastReadCostMs);
    this.timer = setTimeout(() => this.readAll(), Math.max(0, this.lastReadAt + spacing - this.now()));
    this.timer.unref();
  }

  private readAll(): void {
    this.timer = undefined;
    this.lastReadAt = this.now();
    this.read(this.ledger.latest.sequence, new Map());
    this.lastReadCostMs = this.now() - this.lastReadAt;
  }

  /**
   * Reads the positions (of `accounts` only, when given); `own` maps a wallet to its transaction in `sequence`. A
   * reading runs inside a ledger close or a timer: whatever fails in it is kept for the view, never thrown there.
   */
  private read(sequence: number, own: ReadonlyMap<string, string>, accounts?: ReadonlySet<string>): void {
    try {
      this.apply(sequence, own, accounts);
      this.readError = undefined;
    } catch (error) {
      this.readError = (error as Error).message;
    }
  }

  private apply(sequence: number, own: ReadonlyMap<string, string>, accounts?: ReadonlySet<string>): void {
    const now = this.now();
    const at = now / 1000;
    const seen = new Set<string>();
    for (const position of readPositions(this.ledger, this.directory, accounts)) {
      const key = `${position.pool}:${position.account}`;
      seen.add(key);
      const track = this.tracks.get(key) ?? (position.healthFactor === null ? undefined : this.follow(key, position));
      if (!track) continue;
      this.noteRepay(track, sequence, own.get(track.account), position.liabilities, at);
      if (position.healthFactor !== null) {
        const point = { ledger: sequence, at, healthFactor: Number(position.healthFactor) / 1e7 };
        push(track.points, point, this.limits.points);
        track.touched = now;
      }
    }
    // A position that is gone (closed in full) has no reading, but its last repay is still news.
    for (const [key, track] of this.tracks) {
      if (seen.has(key) || (accounts && !accounts.has(track.account))) continue;
      this.noteRepay(track, sequence, own.get(track.account), {}, at);
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
  private noteRepay(
    track: Track,
    sequence: number,
    txHash: string | undefined,
    debt: Readonly<Record<string, string>>,
    at: number,
  ): void {
    const before = track.debt;
    track.debt = debt;
    const repaid = Object.entries(before).some(([symbol, amount]) => BigInt(debt[symbol] ?? '0') < BigInt(amount));
    if (!repaid || !txHash) return;
    const cleared = Object.values(debt).every((amount) => amount === '0');
    push(
      track.markers,
      {
        kind: 'close',
        ledger: sequence,
        at,
        healthFactor: lastFactor(track),
        title: cleared ? 'position closed: debt repaid in full' : 'debt reduced (partial close or repay)',
        txHash,
        key: txHash,
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
