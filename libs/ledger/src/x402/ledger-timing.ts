import type { LedgerRpc } from '../rpc/ledger-rpc';

/** The close time the x402 libraries assume when they cannot measure one (their Horizon is unreachable). */
export const FALLBACK_LEDGER_SECONDS = 5;

/** Ledgers of slack the reference facilitator allows past the window it computes. */
export const EXPIRATION_TOLERANCE_LEDGERS = 2;

/** How many recent ledgers the close time is averaged over: as many as the reference libraries read. */
const SAMPLE_LEDGERS = 20;

/** The window of one payment authorization, as every party of an exact payment computes it. */
export interface ExpirationWindow {
  /** The latest closed ledger when the window was computed. */
  currentLedger: number;
  /** Seconds per ledger: the recent average, rounded up (what the reference libraries use). */
  closeSeconds: number;
  /** The expiration ledger a payer signs: `currentLedger + ceil(maxTimeoutSeconds / closeSeconds)`. */
  expirationLedger: number;
  /**
   * The latest expiration accepted: the same formula with the average rounded down, plus the reference
   * facilitator's tolerance of 2 ledgers. A payer whose estimate was on the other side of a whole second (6.0 s
   * measured, 6.1 s now) is still inside it.
   */
  maxLedger: number;
}

export interface LedgerTimingOptions {
  /** How long a measured close time is reused; default 60 s. */
  cacheMs?: number;
  now?: () => number;
}

/**
 * Ledger timing for x402 exact payments, computed one way for all three places that need it: the payment builder
 * (`createExactPayment`), the server-assisted `prepare`, and the server's expiration check. The reference
 * implementation (`@x402/stellar`'s client and facilitator) signs and accepts authorizations expiring at most
 * `current + ceil(maxTimeoutSeconds / estimate)` (+2 ledgers on the facilitator's side), the estimate being the
 * average close time of the last 20 ledgers rounded up, 5 s when it cannot be measured. It reads those ledgers from
 * Horizon; this reads them from the Soroban RPC (`getLedgers`), which every deployment here has, so with ledgers
 * closing every 4 to 7 s the payer, the server and a reference facilitator agree.
 */
export class LedgerTiming {
  private readonly cacheMs: number;
  private readonly now: () => number;
  private cached?: { average: number; at: number };
  private measuring?: Promise<number>;

  constructor(
    private readonly ledger: LedgerRpc,
    options: LedgerTimingOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The expiration window of an authorization that may live `maxTimeoutSeconds`, from the latest ledger now. */
  async window(maxTimeoutSeconds: number): Promise<ExpirationWindow> {
    const [latest, average] = await Promise.all([this.ledger.getLatestLedger(), this.averageSeconds()]);
    return expirationWindow(latest.sequence, average, maxTimeoutSeconds);
  }

  /** Seconds per ledger over the last 20 ledgers, rounded up; 5 when the RPC cannot tell. */
  async closeSeconds(): Promise<number> {
    return Math.ceil(await this.averageSeconds());
  }

  /** The average close time over the last 20 ledgers (5 when the RPC cannot tell), cached for a minute. */
  private averageSeconds(): Promise<number> {
    if (this.cached && this.now() - this.cached.at < this.cacheMs) return Promise.resolve(this.cached.average);
    this.measuring ??= this.measure().finally(() => (this.measuring = undefined));
    return this.measuring;
  }

  private async measure(): Promise<number> {
    let average = FALLBACK_LEDGER_SECONDS;
    try {
      const latest = await this.ledger.getLatestLedger();
      const startLedger = Math.max(1, latest.sequence - SAMPLE_LEDGERS + 1);
      const page = await this.ledger.getLedgers({ startLedger, pagination: { limit: SAMPLE_LEDGERS } });
      average = averageCloseSeconds(page.ledgers.map((ledger) => Number(ledger.ledgerCloseTime)));
    } catch {
      // An RPC without getLedgers (or one that failed): the reference libraries' own fallback.
      average = FALLBACK_LEDGER_SECONDS;
    }
    this.cached = { average, at: this.now() };
    return average;
  }
}

/** The window for `maxTimeoutSeconds` from `currentLedger`, ledgers closing every `averageSeconds`. */
export function expirationWindow(
  currentLedger: number,
  averageSeconds: number,
  maxTimeoutSeconds: number,
): ExpirationWindow {
  const closeSeconds = Math.max(1, Math.ceil(averageSeconds));
  const fastest = Math.max(1, Math.floor(averageSeconds));
  return {
    currentLedger,
    closeSeconds,
    expirationLedger: currentLedger + Math.ceil(maxTimeoutSeconds / closeSeconds),
    maxLedger: currentLedger + Math.ceil(maxTimeoutSeconds / fastest) + EXPIRATION_TOLERANCE_LEDGERS,
  };
}

/**
 * (newest - oldest) / intervals over ledger close times in unix seconds, not rounded; 5 with fewer than two
 * ledgers. Ledgers that all closed within one second (close times are whole seconds) took less than a second
 * together: the span counts as one second, an upper bound, so a fast test ledger reads about the same before
 * and after its close times start to differ.
 */
export function averageCloseSeconds(closeTimes: readonly number[]): number {
  const times = closeTimes.filter((time) => Number.isFinite(time)).sort((a, b) => a - b);
  if (times.length < 2) return FALLBACK_LEDGER_SECONDS;
  return Math.max(1, times[times.length - 1] - times[0]) / (times.length - 1);
}
