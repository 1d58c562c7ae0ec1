import type { PoolActivity } from '@rp/ledger';

/** What the agent read of the ledgers it missed, shown in `/status` (`rpc.lastCatchUp`). */
export interface CatchUp {
  readonly at: string;
  /** The first ledger missed and the ledger read up to. */
  readonly fromLedger: number;
  readonly toLedger: number;
  /** Why: the ledger could not be read at the last poll, or the calls moved to another endpoint. */
  readonly reason: 'outage' | 'endpoint-changed';
  /** Events of the pools in those ledgers; `null` when they could not be read (past the RPC's retention). */
  readonly events: number | null;
  /** Pools whose missed events name the wallet: its position there changed while the agent was not looking. */
  readonly walletPools: readonly string[];
}

/** The ledger as the catch-up needs it: the latest ledger, the endpoint in use, who the pools' events name. */
export interface CatchUpLedger {
  getLatestLedger(): Promise<{ sequence: number }>;
  originInUse(): string;
  /** `poolActivitySince` of the pools from `startLedger` on. */
  poolActivitySince(pools: readonly string[], startLedger: number): Promise<PoolActivity>;
}

/**
 * After an RPC outage (a poll that could not read the ledger) or a move to another endpoint (which may have
 * been behind, or this one was), the agent reads the pools' events of the ledgers it missed before it decides:
 * the wallet's positions are then read at the current ledger as on every poll, and the pools whose events name the
 * wallet (its position there changed while the agent was not looking) are reported. `LedgerService.account` runs it
 * at the start of every poll.
 */
export class LedgerCatchUp {
  private lastLedger?: number;
  private lastOrigin?: string;
  private outage = false;
  last: CatchUp | undefined;

  constructor(
    private readonly ledger: CatchUpLedger,
    private readonly wallet: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Called at the start of each poll. Returns what was missed when there was an outage or an endpoint change
   * since the last poll, else `undefined`. Never throws: a ledger that does not answer is an outage, noted for the
   * next poll, and the poll goes on as it would have.
   */
  async beforeDecision(pools: readonly string[]): Promise<CatchUp | undefined> {
    let latest: number;
    try {
      latest = (await this.ledger.getLatestLedger()).sequence;
    } catch {
      this.outage = true;
      return undefined;
    }
    const origin = this.ledger.originInUse();
    const reason = this.outage ? 'outage' : origin !== this.lastOrigin && this.lastOrigin !== undefined ? 'endpoint-changed' : undefined;
    const from = this.lastLedger === undefined ? undefined : this.lastLedger + 1;
    this.lastOrigin = origin;
    if (reason === undefined || from === undefined || from > latest) {
      this.outage = false;
      this.lastLedger = Math.max(latest, this.lastLedger ?? 0);
      return undefined;
    }
    const missed = await this.missedEvents(pools, from);
    if (missed === 'unreadable-now') {
      this.outage = true;
      return undefined;
    }
    this.outage = false;
    this.lastLedger = latest;
    this.last = {
      at: this.now().toISOString(),
      fromLedger: from,
      toLedger: latest,
      reason,
      events: missed?.events ?? null,
      walletPools: missed ? [...missed.touched].filter(([, named]) => named.has(this.wallet)).map(([pool]) => pool) : [],
    };
    return this.last;
  }

  /** The pools' events from `from` on; `undefined` when past retention, `unreadable-now` when the RPC failed. */
  private async missedEvents(pools: readonly string[], from: number) {
    if (pools.length === 0) return { events: 0, touched: new Map<string, Set<string>>() };
    try {
      return await this.ledger.poolActivitySince(pools, from);
    } catch (error) {
      // stellar-rpc answers a start ledger outside its retention window with an invalid-params error (-32602).
      return (error as { rpcCode?: number }).rpcCode === -32602 ? undefined : ('unreadable-now' as const);
    }
  }
}
