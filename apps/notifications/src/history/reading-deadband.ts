import type { PositionReading } from './health-tiers';

/** A position whose reading did not change still gets a point this often (the series is never sparser). */
export const READING_HEARTBEAT_MS = 5 * 60_000;
/** Positions remembered at most (a bound for wallets no longer watched); past it the memory starts over. */
const MAX_POSITIONS = 200_000;

/** A position's last point: its health factor (as read and to 4 decimals), level, triggers and time. */
interface LastPoint {
  readonly healthFactor: number | null;
  readonly printed: string;
  readonly riskLevel: string;
  readonly triggers: readonly string[];
  readonly at: number;
}

const printed = (healthFactor: number | null): string => (healthFactor === null ? '-' : healthFactor.toFixed(4));

function sameTriggers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Which round readings are worth a point (ADR 024): one whose health factor (to 4 decimals, as alerts print it),
 * level or triggers differ from the position's last point, or whose last point is `READING_HEARTBEAT_MS` old.
 * Remembered per process: a position whose batch moves to another worker gets a point there, never fewer. Asked
 * for every watched position every round, so it compares fields in place (the health factor printed only when it
 * moved) rather than building a signature.
 */
export class ReadingDeadband {
  /** Pool -> wallet -> last point. */
  private readonly last = new Map<string, Map<string, LastPoint>>();
  private size = 0;

  keep(reading: PositionReading, at: Date): boolean {
    const time = at.getTime();
    let byWallet = this.last.get(reading.poolAddress);
    const held = byWallet?.get(reading.walletAddress);
    if (
      held &&
      time - held.at < READING_HEARTBEAT_MS &&
      held.riskLevel === reading.riskLevel &&
      sameTriggers(held.triggers, reading.triggers) &&
      (held.healthFactor === reading.healthFactor || held.printed === printed(reading.healthFactor))
    ) {
      return false;
    }
    if (!held && this.size >= MAX_POSITIONS) {
      this.last.clear();
      this.size = 0;
      byWallet = undefined;
    }
    if (!byWallet) {
      byWallet = new Map();
      this.last.set(reading.poolAddress, byWallet);
    }
    if (!byWallet.has(reading.walletAddress)) this.size += 1;
    byWallet.set(reading.walletAddress, {
      healthFactor: reading.healthFactor,
      printed: printed(reading.healthFactor),
      riskLevel: reading.riskLevel,
      triggers: [...reading.triggers],
      at: time,
    });
    return true;
  }
}
