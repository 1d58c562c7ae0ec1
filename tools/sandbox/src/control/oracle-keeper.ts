import { decodeOracleAsset, decodePriceData, encodeOracleAsset, type PriceData } from '@rp/ledger';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { BadRequestError } from '../server/http-io';
import type { SandboxSetup } from './sandbox-setup';

/**
 * A running feed publishes a price again once it is this many seconds of ledger time old, like a push feed's
 * heartbeat: at every ledger close each running price is less than 30 s old, ten times inside the default
 * `oracleMaxAgeSeconds` (300), so nothing turns stale under `npm start` unless a feed is stopped.
 */
export const KEEPER_HEARTBEAT_SECONDS = 30n;

/** How far back the control may stamp a stopped price: a year. */
export const MAX_AGE_SECONDS = 31_536_000;

export interface FeedPrice {
  readonly asset: string;
  readonly price: string;
  /** Unix seconds the oracle stamped the price with. */
  readonly timestamp: string;
  /** Seconds from the stamp to the latest ledger's close (negative: stamped after it). */
  readonly ageSeconds: number;
  readonly running: boolean;
}

export interface OracleFeed {
  readonly oracle: string;
  /** False when the whole oracle is stopped (single assets may be stopped while it runs: see `prices`). */
  readonly running: boolean;
  readonly heartbeatSeconds: number;
  readonly prices: readonly FeedPrice[];
}

/**
 * The sandbox oracles' keeper: after every ledger close it re-publishes (`set_price` with the same price) each
 * price of a running feed that is `KEEPER_HEARTBEAT_SECONDS` or more behind that close, as a real feed keeps its
 * prices fresh. A whole oracle or one asset's feed can be stopped, optionally stamped `ageSeconds` in the past (a
 * feed that stopped that long ago: stale at once), and restarted (the next close publishes again).
 */
export class OracleKeeper {
  /** Stopped feeds by oracle: every asset ('all'), or the listed ones. */
  private readonly stopped = new Map<string, 'all' | Set<string>>();

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly setup: SandboxSetup,
  ) {
    ledger.on('close', (closed) => this.keep(closed.closeTime));
  }

  /** Re-publishes every running price `KEEPER_HEARTBEAT_SECONDS` or more behind `closeTime`. */
  keep(closeTime: bigint): void {
    for (const { contractId } of this.setup.directory.oracles) {
      for (const [asset, last] of this.pricesOf(contractId)) {
        if (this.isRunning(contractId, asset) && closeTime - last.timestamp >= KEEPER_HEARTBEAT_SECONDS) {
          this.setup.setPrice(contractId, asset, last.price);
        }
      }
    }
  }

  /** Stops the oracle's feed (or one asset's); with `ageSeconds`, its prices are stamped that long before the last close. */
  stop(oracle: string, options: { asset?: string; ageSeconds?: number } = {}): OracleFeed {
    const prices = this.pricesOf(this.known(oracle));
    const { asset, ageSeconds } = options;
    if (asset !== undefined && !prices.has(asset))
      throw new BadRequestError(`oracle ${oracle} has no price of ${asset}`);
    if (asset === undefined) this.stopped.set(oracle, 'all');
    else {
      const stops = this.stopped.get(oracle);
      if (stops !== 'all') this.stopped.set(oracle, new Set([...(stops ?? []), asset]));
    }
    if (ageSeconds !== undefined) {
      const stamp = this.ledger.latest.closeTime - BigInt(ageSeconds);
      for (const [held, last] of prices) {
        if (asset === undefined || held === asset) this.setup.setPrice(oracle, held, last.price, stamp);
      }
    }
    return this.feed(oracle);
  }

  /** Runs the oracle's feed again (or one asset's): the next ledger close publishes what is due. */
  start(oracle: string, asset?: string): OracleFeed {
    const prices = this.pricesOf(this.known(oracle));
    if (asset !== undefined && !prices.has(asset))
      throw new BadRequestError(`oracle ${oracle} has no price of ${asset}`);
    const stops = this.stopped.get(oracle);
    if (asset === undefined || stops === undefined) this.stopped.delete(oracle);
    else {
      const left = new Set(stops === 'all' ? prices.keys() : stops);
      left.delete(asset);
      if (left.size === 0) this.stopped.delete(oracle);
      else this.stopped.set(oracle, left);
    }
    return this.feed(oracle);
  }

  feed(oracle: string): OracleFeed {
    const close = this.ledger.latest.closeTime;
    return {
      oracle,
      running: this.stopped.get(oracle) !== 'all',
      heartbeatSeconds: Number(KEEPER_HEARTBEAT_SECONDS),
      prices: [...this.pricesOf(oracle)].map(([asset, last]) => ({
        asset,
        price: last.price.toString(),
        timestamp: last.timestamp.toString(),
        ageSeconds: Number(close - last.timestamp),
        running: this.isRunning(oracle, asset),
      })),
    };
  }

  feeds(): OracleFeed[] {
    return this.setup.directory.oracles.map(({ contractId }) => this.feed(contractId));
  }

  /** Every feed runs again (a reset). */
  forget(): void {
    this.stopped.clear();
  }

  private isRunning(oracle: string, asset: string): boolean {
    const stops = this.stopped.get(oracle);
    return stops === undefined || (stops !== 'all' && !stops.has(asset));
  }

  private known(oracle: string): string {
    if (!this.setup.directory.oracles.some((known) => known.contractId === oracle)) {
      throw new BadRequestError(`no sandbox oracle at ${oracle}`);
    }
    return oracle;
  }

  /** The oracle's last price of each Stellar asset it prices (`assets()`, then `lastprice`). */
  private pricesOf(oracle: string): Map<string, PriceData> {
    const prices = new Map<string, PriceData>();
    const listed = this.ledger.view(oracle, 'assets', []).vec() ?? [];
    for (const encoded of listed) {
      const asset = decodeOracleAsset(encoded);
      if (!('stellar' in asset)) continue;
      const value = this.ledger.view(oracle, 'lastprice', [encodeOracleAsset(asset)]);
      if (value.switch().name !== 'scvVoid') prices.set(asset.stellar, decodePriceData(value));
    }
    return prices;
  }
}
