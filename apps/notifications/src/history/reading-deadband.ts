import type { PositionReading } from './health-tiers';

/** A position whose reading did not change still gets a point this often (the series is never sparser). */
export const READING_HEARTBEAT_MS = 5 * 60_000;
/** Positions remembered at most (a bound for wallets no longer watched); past it the memory starts over. */
const MAX_POSITIONS = 200_000;

/**
 * Which round readings are worth a point (ADR 024): one whose health factor (to 4 decimals, as alerts print it),
 * level or triggers differ from the position's last point, or whose last point is `READING_HEARTBEAT_MS` old.
 * Remembered per process: a position whose batch moves to another worker gets a point there, never fewer.
 */
export class ReadingDeadband {
  private readonly last = new Map<string, { signature: string; at: number }>();

  keep(reading: PositionReading, at: Date): boolean {
    const key = `${reading.walletAddress}:${reading.poolAddress}`;
    const healthFactor = reading.healthFactor === null ? '-' : reading.healthFactor.toFixed(4);
    const signature = `${healthFactor}|${reading.riskLevel}|${reading.triggers.join(',')}`;
    const held = this.last.get(key);
    if (held && held.signature === signature && at.getTime() - held.at < READING_HEARTBEAT_MS) return false;
    if (!held && this.last.size >= MAX_POSITIONS) this.last.clear();
    this.last.set(key, { signature, at: at.getTime() });
    return true;
  }
}
