/** Redis keys of the monitor, under the service's key prefix (`NOTIFICATIONS_KEY_PREFIX`). */
export class MonitorKeys {
  constructor(private readonly prefix: string) {}

  /** Held by the one scheduler that runs rounds. */
  get lock(): string {
    return `${this.prefix}rms:scheduler`;
  }

  /** Round numbers, shared by every scheduler that ever held the lock. */
  get roundCounter(): string {
    return `${this.prefix}rms:rounds`;
  }

  /** The round being evaluated now: batch jobs of any other round are stale and skip. */
  get currentRound(): string {
    return `${this.prefix}rms:round`;
  }

  /** The last ledger whose pool events were read. */
  get eventsLedger(): string {
    return `${this.prefix}rms:events-ledger`;
  }

  /** Hash wallet -> cached positions in a pool. */
  positions(pool: string): string {
    return `${this.prefix}rms:positions:${pool}`;
  }

  /** Set of the users with a live user liquidation auction in a pool, as of the last round. */
  auctions(pool: string): string {
    return `${this.prefix}rms:auctions:${pool}`;
  }

  /** The pools (config, reserves, prices) a round evaluates against, read once by its scheduler. */
  roundPools(round: number): string {
    return `${this.prefix}rms:round:${round}:pools`;
  }

  /** How many of a round's batch jobs are finished. */
  roundDone(round: number): string {
    return `${this.prefix}rms:round:${round}:done`;
  }
}
