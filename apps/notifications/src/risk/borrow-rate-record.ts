import type { RedisClient } from '@rp/platform';

/** Borrow rates (APR, 7 decimals) by pool, then by reserve asset. */
export type PoolBorrowRates = ReadonlyMap<string, ReadonlyMap<string, bigint>>;

/** The borrow rates one monitor round saw, at its ledger. */
export interface RoundBorrowRates {
  readonly ledger: number;
  readonly rates: PoolBorrowRates;
}

/** What the record holds: the last round's rates and the round's before it. */
export interface BorrowRateHistory extends RoundBorrowRates {
  readonly previous?: RoundBorrowRates;
}

/** A monitor stopped this long has no "last round" any more: the record lapses. */
const RECORD_TTL_MS = 10 * 60_000;

type RatesJson = Record<string, Record<string, string>>;
interface HistoryJson {
  ledger: number;
  rates: RatesJson;
  previous?: { ledger: number; rates: RatesJson };
}

/**
 * The monitor's record of the borrow rates of its last two rounds (one Redis key, `rms:borrow-rates`, next to the
 * round's pools): the scheduler writes it each round, and the risk answer reads it to know what "since the last
 * round" means for `borrow_rate_jump`. Absent without Redis (the risk routes alone), before any round, and once
 * the monitor has not run for 10 minutes.
 */
export class BorrowRateRecord {
  readonly key: string;

  constructor(
    private readonly redis: RedisClient | undefined,
    prefix: string,
  ) {
    this.key = `${prefix}rms:borrow-rates`;
  }

  async read(): Promise<BorrowRateHistory | undefined> {
    const text = this.redis ? await this.redis.get(this.key) : null;
    if (text === null) return undefined;
    const json = JSON.parse(text) as HistoryJson;
    return {
      ledger: json.ledger,
      rates: ratesOf(json.rates),
      previous: json.previous && { ledger: json.previous.ledger, rates: ratesOf(json.previous.rates) },
    };
  }

  /** The record after a round at `round.ledger`, given the one read before it; `[key, value, 'PX', ttl]` for SET. */
  next(last: BorrowRateHistory | undefined, round: RoundBorrowRates): [string, string, 'PX', number] {
    const previous = lastRoundBefore(last, round.ledger);
    const json: HistoryJson = {
      ledger: round.ledger,
      rates: jsonOf(round.rates),
      ...(previous && { previous: { ledger: previous.ledger, rates: jsonOf(previous.rates) } }),
    };
    return [this.key, JSON.stringify(json), 'PX', RECORD_TTL_MS];
  }
}

/**
 * The rates of the last round before `ledger`: the recorded round when it is older, else the one before it (the
 * monitor already evaluated this ledger: compare as it did); none when neither is older (a network reset).
 */
export function lastRoundBefore(history: BorrowRateHistory | undefined, ledger: number): RoundBorrowRates | undefined {
  if (!history) return undefined;
  if (history.ledger < ledger) return { ledger: history.ledger, rates: history.rates };
  return history.previous && history.previous.ledger < ledger ? history.previous : undefined;
}

function ratesOf(json: RatesJson): PoolBorrowRates {
  return new Map(
    Object.entries(json).map(([pool, byAsset]) => [
      pool,
      new Map(Object.entries(byAsset).map(([asset, rate]) => [asset, BigInt(rate)])),
    ]),
  );
}

function jsonOf(rates: PoolBorrowRates): RatesJson {
  return Object.fromEntries(
    [...rates].map(([pool, byAsset]) => [
      pool,
      Object.fromEntries([...byAsset].map(([asset, rate]) => [asset, rate.toString()])),
    ]),
  );
}
