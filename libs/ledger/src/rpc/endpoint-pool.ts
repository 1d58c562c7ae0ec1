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

export interface RpcEndpoint {
  url: string;
  /** URL origin: the only part of the URL that goes into metrics and errors (paths may embed API keys). */
  origin: string;
  server: rpc.Server;
  restUntil: number;
}

/**
 * The primary RPC and its fallbacks, in order. A failing endpoint rests for `cooldownMs`; meanwhile calls go to
 * the next one. When every endpoint rests, the one that comes back first is used rather than failing outright.
 */
export class EndpointPool {
  readonly endpoints: readonly RpcEndpoint[];

  constructor(
    urls: readonly string[],
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {
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
      return { url, origin, server, restUntil: 0 };
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

  rest(endpoint: RpcEndpoint): void {
    endpoint.restUntil = this.now() + this.cooldownMs;
  }

  recovered(endpoint: RpcEndpoint): void {
    endpoint.restUntil = 0;
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
