import { rpc } from '@stellar/stellar-sdk';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The abort signal of the attempt in progress. The SDK's methods take no signal, so `withSignal` puts it here and
 * a request interceptor of each endpoint's HTTP client (axios) hands it to the request the SDK sends.
 */
const attemptSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `send` so that every HTTP request it makes through a pool endpoint is aborted by `signal`. */
export function withSignal<T>(signal: AbortSignal, send: () => Promise<T>): Promise<T> {
  return attemptSignal.run(signal, send);
}

export type RestReason = 'failure' | 'stale';

export interface RpcEndpoint {
  url: string;
  /** URL origin: the only part of the URL that goes into metrics and errors (paths may embed API keys). */
  origin: string;
  server: rpc.Server;
  restUntil: number;
  /** Why it rests (while `restUntil` is ahead). */
  restReason?: RestReason;
  /** The highest latest ledger it has answered with (0: none yet), and when that ledger was first seen. */
  latestLedger: number;
  advancedAt: number;
}

/** What `/status` shows of one endpoint: its origin only. */
export interface EndpointView {
  readonly origin: string;
  readonly inUse: boolean;
  readonly resting: RestReason | null;
  readonly latestLedger: number | null;
}

export interface EndpointPoolOptions {
  /** How long a failing endpoint is skipped when it does not say (Retry-After). */
  cooldownMs: number;
  /**
   * An endpoint whose latest ledger has not gone up for this long is stalled; it is rested once another endpoint
   * is seen at a later ledger. Several ledger close times (default: 3 x 5 s).
   */
  staleAfterMs?: number;
  now?: () => number;
}

/** The longest rest a `Retry-After` can ask for: a bad header must not take an endpoint out for hours. */
export const MAX_REST_MS = 10 * 60_000;

/**
 * The endpoints, in order (the first is the primary). A failing endpoint rests for `cooldownMs` (or the
 * `Retry-After` it sent); meanwhile calls go to the next one, and the primary is used again once its rest is over.
 * When every endpoint rests, the one that comes back first is used rather than failing outright. An endpoint whose
 * latest ledger stands still while another's has moved on is behind the network and rests too.
 */
export class EndpointPool {
  readonly endpoints: readonly RpcEndpoint[];
  readonly staleAfterMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(urls: readonly string[], options: EndpointPoolOptions) {
    this.cooldownMs = options.cooldownMs;
    this.staleAfterMs = options.staleAfterMs ?? 15_000;
    this.now = options.now ?? Date.now;
    const now = this.now();
    this.endpoints = [...new Set(urls)].map((url) => {
      const origin = originOf(url);
      const server = new rpc.Server(url, { allowHttp: url.startsWith('http://') });
      // The SDK's request config type omits `signal`; the client under it (axios) honours it.
      server.httpClient.interceptors.request.use((config) => {
        const signal = attemptSignal.getStore();
        const request = config as typeof config & { signal?: AbortSignal };
        if (signal && !request.signal) request.signal = signal;
        return request;
      });
      return { url, origin, server, restUntil: 0, latestLedger: 0, advancedAt: now };
    });
  }

  /** Applies the per-request deadline to the SDK's HTTP client, so a hung socket is torn down, not leaked. */
  setRequestTimeout(timeoutMs: number): void {
    for (const endpoint of this.endpoints) endpoint.server.httpClient.defaults.timeout = timeoutMs;
  }

  pick(): RpcEndpoint {
    const now = this.now();
    const ready = this.endpoints.find((endpoint) => endpoint.restUntil <= now);
    if (ready) return ready;
    return this.endpoints.reduce((soonest, endpoint) => (endpoint.restUntil < soonest.restUntil ? endpoint : soonest));
  }

  /** Skips `endpoint` for `restMs` (its Retry-After, capped at `MAX_REST_MS`) or the cooldown. */
  rest(endpoint: RpcEndpoint, restMs?: number, reason: RestReason = 'failure'): void {
    const ms = restMs === undefined ? this.cooldownMs : Math.min(Math.max(0, restMs), MAX_REST_MS);
    endpoint.restUntil = this.now() + ms;
    endpoint.restReason = reason;
  }

  recovered(endpoint: RpcEndpoint): void {
    endpoint.restUntil = 0;
    endpoint.restReason = undefined;
  }

  /** Records the latest ledger `endpoint` answered with. */
  observeLedger(endpoint: RpcEndpoint, sequence: number): void {
    if (sequence > endpoint.latestLedger) {
      endpoint.latestLedger = sequence;
      endpoint.advancedAt = this.now();
    }
  }

  /** Its latest ledger has not gone up for `staleAfterMs` (and there is another endpoint to compare with). */
  stalled(endpoint: RpcEndpoint): boolean {
    return this.endpoints.length > 1 && endpoint.latestLedger > 0 && this.now() - endpoint.advancedAt >= this.staleAfterMs;
  }

  /** Stalled, and another endpoint has been seen at a later ledger: it is behind the network, not the network idle. */
  behind(endpoint: RpcEndpoint): boolean {
    return this.stalled(endpoint) && this.endpoints.some((other) => other.latestLedger > endpoint.latestLedger);
  }

  /** The others, to ask for their latest ledger when `endpoint` has stalled. */
  others(endpoint: RpcEndpoint): RpcEndpoint[] {
    return this.endpoints.filter((other) => other !== endpoint);
  }

  /** Each endpoint by origin: the one in use, those resting and why, the latest ledger each was seen at. */
  view(): EndpointView[] {
    const now = this.now();
    const inUse = this.pick();
    return this.endpoints.map((endpoint) => ({
      origin: endpoint.origin,
      inUse: endpoint === inUse,
      resting: endpoint.restUntil > now ? (endpoint.restReason ?? 'failure') : null,
      latestLedger: endpoint.latestLedger || null,
    }));
  }
}

/**
 * The URL's origin (scheme, host, port): what metrics and errors may show. A URL that does not parse is refused
 * without echoing it (Node's own error would carry the whole input, API keys included).
 */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new Error('a ledger RPC URL is not a valid URL (value not shown: it may hold credentials)');
  }
}
