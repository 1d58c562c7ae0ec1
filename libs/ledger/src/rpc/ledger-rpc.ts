import type { LedgerNetwork } from '@rp/contracts';
import {
  type Account,
  type FeeBumpTransaction,
  type Transaction,
  TransactionBuilder,
  type rpc,
  type xdr,
} from '@stellar/stellar-sdk';
import type { Registry } from 'prom-client';
import { networkPassphrase } from '../network/ledger-network';
import { backoffDelay, sleep, withDeadline } from './backoff';
import { EndpointPool, type EndpointView, type RpcEndpoint, withSignal } from './endpoint-pool';
import { type AttemptFailure, LedgerRpcError, NetworkMismatchError, classifyFailure } from './rpc-errors';
import { RpcMetrics } from './rpc-metrics';
import { parseRpcUrlList } from './rpc-url-list';

export interface LedgerRpcOptions {
  /** The RPC (`CONTRACT_RPC_URL`): one URL or a comma-separated list, the first the primary, the rest in order. */
  rpcUrl: string;
  /** Tried in order after those of `rpcUrl`. */
  fallbackRpcUrls?: readonly string[];
  /** Deadline of one attempt; default 10 s. */
  timeoutMs?: number;
  /** Attempts per call, the first included; default 3. */
  maxAttempts?: number;
  /** First backoff step; doubles per attempt, jittered; default 250 ms. */
  backoffMs?: number;
  /** How long a failing endpoint is skipped when it does not send `Retry-After`; default 30 s. */
  cooldownMs?: number;
  /** How long an endpoint's latest ledger may stand still before another endpoint is asked; default 15 s. */
  staleAfterMs?: number;
  registry?: Registry;
  network?: LedgerNetwork;
}

/** getLedgerEntries accepts at most this many keys per request. */
export const LEDGER_ENTRIES_PER_REQUEST = 200;

const TRY_AGAIN_LATER: AttemptFailure = {
  kind: 'try-again-later',
  retryable: true,
  failover: false,
  detail: 'status TRY_AGAIN_LATER',
};

interface CallPolicy<T> {
  /** A successful answer that still asks to be resent (sendTransaction's TRY_AGAIN_LATER). */
  retryAnswer?: (answer: T) => AttemptFailure | undefined;
}

/**
 * The ledger RPC as the SDK's `rpc.Server` sees it, plus what production needs: per-attempt deadline, retries
 * with backoff on transport failures, failover to fallback URLs, and latency metrics per method and endpoint.
 */
export class LedgerRpc {
  readonly network?: LedgerNetwork;
  private readonly pool: EndpointPool;
  private readonly metrics?: RpcMetrics;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private passphrase?: Promise<string>;
  private probedAt = 0;

  constructor(options: LedgerRpcOptions) {
    this.network = options.network;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.backoffMs = options.backoffMs ?? 250;
    this.pool = new EndpointPool([...parseRpcUrlList(options.rpcUrl), ...(options.fallbackRpcUrls ?? [])], {
      cooldownMs: options.cooldownMs ?? 30_000,
      staleAfterMs: options.staleAfterMs,
    });
    this.pool.setRequestTimeout(this.timeoutMs);
    this.metrics = options.registry ? new RpcMetrics(options.registry, () => this.endpoints()) : undefined;
  }

  /** The origin calls go to now (the only part of its URL that may be shown). */
  originInUse(): string {
    return this.pool.pick().origin;
  }

  /** The full URL calls go to now, for a client that needs one URL (never to be shown or logged). */
  urlInUse(): string {
    return this.pool.pick().url;
  }

  /** Every endpoint by origin: in use, resting and why, the latest ledger it was seen at. */
  endpoints(): EndpointView[] {
    return this.pool.view();
  }

  getHealth(): Promise<rpc.Api.GetHealthResponse> {
    return this.call('getHealth', (server) => server.getHealth());
  }

  getNetwork(): Promise<rpc.Api.GetNetworkResponse> {
    return this.call('getNetwork', (server) => server.getNetwork());
  }

  getLatestLedger(): Promise<rpc.Api.GetLatestLedgerResponse> {
    return this.call('getLatestLedger', (server) => server.getLatestLedger());
  }

  /** Splits into requests of 200 keys (the RPC's limit), sent together, and merges the entries. */
  async getLedgerEntries(keys: readonly xdr.LedgerKey[]): Promise<rpc.Api.GetLedgerEntriesResponse> {
    if (keys.length <= LEDGER_ENTRIES_PER_REQUEST) {
      return this.call('getLedgerEntries', (server) => server.getLedgerEntries(...keys));
    }
    const chunks: xdr.LedgerKey[][] = [];
    for (let i = 0; i < keys.length; i += LEDGER_ENTRIES_PER_REQUEST) {
      chunks.push(keys.slice(i, i + LEDGER_ENTRIES_PER_REQUEST));
    }
    const answers = await Promise.all(
      chunks.map((chunk) => this.call('getLedgerEntries', (server) => server.getLedgerEntries(...chunk))),
    );
    // The merged view is only as fresh as its oldest chunk.
    return {
      entries: answers.flatMap((answer) => answer.entries),
      latestLedger: Math.min(...answers.map((answer) => answer.latestLedger)),
    };
  }

  /**
   * `getLedgerEntries` of base64 `LedgerKey`s, answered as the RPC sent it (base64 entries, not decoded): for callers
   * that read many entries and decode only what they need. Chunks and merges as `getLedgerEntries` does.
   */
  async getLedgerEntriesRaw(keys: readonly string[]): Promise<rpc.Api.RawGetLedgerEntriesResponse> {
    const chunks = [keys.slice(0, LEDGER_ENTRIES_PER_REQUEST)];
    for (let i = LEDGER_ENTRIES_PER_REQUEST; i < keys.length; i += LEDGER_ENTRIES_PER_REQUEST) {
      chunks.push(keys.slice(i, i + LEDGER_ENTRIES_PER_REQUEST));
    }
    const answers = await Promise.all(
      chunks.map((chunk) =>
        this.call('getLedgerEntries', (server) =>
          postJsonRpc<rpc.Api.RawGetLedgerEntriesResponse>(server, 'getLedgerEntries', { keys: chunk }),
        ),
      ),
    );
    if (answers.length === 1) return answers[0];
    return {
      entries: answers.flatMap((answer) => answer.entries ?? []),
      latestLedger: Math.min(...answers.map((answer) => answer.latestLedger)),
    };
  }

  /** The account with its current sequence; the SDK throws "Account not found" (not retried) when it does not exist. */
  getAccount(address: string): Promise<Account> {
    return this.call('getAccount', (server) => server.getAccount(address));
  }

  simulateTransaction(tx: Transaction | FeeBumpTransaction): Promise<rpc.Api.SimulateTransactionResponse> {
    return this.call('simulateTransaction', (server) => server.simulateTransaction(tx));
  }

  /** The simulation as the RPC sent it, not decoded: for callers that need only part of it. */
  simulateTransactionRaw(tx: Transaction | FeeBumpTransaction): Promise<rpc.Api.RawSimulateTransactionResponse> {
    return this.call('simulateTransaction', (server) => server._simulateTransaction(tx));
  }

  /**
   * Resends the same signed envelope on transport failures and TRY_AGAIN_LATER: same hash, so a copy that did
   * arrive comes back as DUPLICATE rather than running twice.
   */
  sendTransaction(tx: Transaction | FeeBumpTransaction): Promise<rpc.Api.SendTransactionResponse> {
    return this.call('sendTransaction', (server) => server.sendTransaction(tx), {
      retryAnswer: (answer) => (answer.status === 'TRY_AGAIN_LATER' ? TRY_AGAIN_LATER : undefined),
    });
  }

  /** `sendTransaction` of a signed base64 envelope (a transaction or a fee bump) of this RPC's network. */
  async sendEnvelope(envelope: string): Promise<rpc.Api.SendTransactionResponse> {
    return this.sendTransaction(TransactionBuilder.fromXDR(envelope, await this.networkPassphrase()));
  }

  getTransaction(hash: string): Promise<rpc.Api.GetTransactionResponse> {
    return this.call('getTransaction', (server) => server.getTransaction(hash));
  }

  getEvents(request: rpc.Api.GetEventsRequest): Promise<rpc.Api.GetEventsResponse> {
    return this.call('getEvents', (server) => server.getEvents(request));
  }

  /** Inclusion fee percentiles of recent ledgers (`sorobanInclusionFee`, `inclusionFee`). */
  getFeeStats(): Promise<rpc.Api.GetFeeStatsResponse> {
    return this.call('getFeeStats', (server) => server.getFeeStats());
  }

  /** Closed ledgers from `startLedger` on (or after a cursor), each with its close time. */
  getLedgers(request: rpc.Api.GetLedgersRequest): Promise<rpc.Api.GetLedgersResponse> {
    return this.call('getLedgers', (server) => server.getLedgers(request));
  }

  /** The configured network's passphrase, else the one the RPC reports (asked once). */
  networkPassphrase(): Promise<string> {
    if (this.network) return Promise.resolve(networkPassphrase(this.network));
    this.passphrase ??= this.getNetwork().then(
      (answer) => answer.passphrase,
      (error: unknown) => {
        this.passphrase = undefined;
        throw error;
      },
    );
    return this.passphrase;
  }

  /** Fails with `NetworkMismatchError` when the RPC serves another network than `options.network`. */
  async assertNetwork(): Promise<void> {
    if (!this.network) throw new Error('LedgerRpc.assertNetwork needs the `network` option');
    const expected = networkPassphrase(this.network);
    const { passphrase } = await this.getNetwork();
    if (passphrase !== expected) throw new NetworkMismatchError(expected, passphrase);
  }

  private async call<T>(
    method: string,
    send: (server: rpc.Server) => Promise<T>,
    policy: CallPolicy<T> = {},
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const endpoint = this.pool.pick();
      const started = performance.now();
      let failure: AttemptFailure | undefined;
      try {
        const answer = await withDeadline((signal) => withSignal(signal, () => send(endpoint.server)), this.timeoutMs);
        failure = policy.retryAnswer?.(answer);
        if (!failure) {
          this.pool.recovered(endpoint);
          const seen = latestLedgerOf(answer);
          if (seen !== undefined) this.pool.observeLedger(endpoint, seen);
          // An answer from an endpoint behind the network is used only when no attempt is left to ask another.
          const behind = attempt < this.maxAttempts && (await this.isBehind(endpoint));
          this.observe(method, endpoint, behind ? 'stale' : 'success', started);
          if (!behind) return answer;
          this.pool.rest(endpoint, undefined, 'stale');
          continue;
        }
        this.observe(method, endpoint, failure.kind, started);
      } catch (error) {
        failure = classifyFailure(error);
        this.observe(method, endpoint, failure?.kind ?? 'error', started);
        if (!failure) throw error;
        if (failure.failover) this.pool.rest(endpoint, failure.restMs);
      }
      if (!failure.retryable || attempt >= this.maxAttempts) {
        throw new LedgerRpcError(failure, method, endpoint.origin, attempt);
      }
      await sleep(backoffDelay(attempt, this.backoffMs));
    }
  }

  /**
   * Whether `endpoint` is behind the network: its latest ledger has stood still for `staleAfterMs` and another
   * endpoint is at a later one. The others are asked for their latest ledger (once per stall period) only when it
   * has stalled, so a healthy primary costs nothing extra.
   */
  private async isBehind(endpoint: RpcEndpoint): Promise<boolean> {
    if (!this.pool.stalled(endpoint)) return false;
    if (this.pool.behind(endpoint)) return true;
    const now = Date.now();
    if (now - this.probedAt < this.pool.staleAfterMs) return false;
    this.probedAt = now;
    await Promise.all(
      this.pool.others(endpoint).map(async (other) => {
        try {
          const latest = await withDeadline(
            (signal) => withSignal(signal, () => other.server.getLatestLedger()),
            this.timeoutMs,
          );
          this.pool.observeLedger(other, latest.sequence);
        } catch {
          // An endpoint that does not answer is no better: it is not counted as ahead.
        }
      }),
    );
    return this.pool.behind(endpoint);
  }

  private observe(
    method: string,
    endpoint: RpcEndpoint,
    outcome: Parameters<RpcMetrics['observe']>[2],
    started: number,
  ): void {
    this.metrics?.observe(method, endpoint.origin, outcome, (performance.now() - started) / 1000);
  }
}

/**
 * One JSON-RPC call through the endpoint's own HTTP client (its interceptors, so the attempt's deadline applies), as
 * the SDK's methods post theirs: the `error` member is thrown as it came, the `result` returned as it came.
 */
async function postJsonRpc<T>(server: rpc.Server, method: string, params: unknown): Promise<T> {
  const response = await server.httpClient.post<{ result?: T; error?: unknown }>(server.serverURL.toString(), {
    jsonrpc: '2.0',
    id: 1,
    method,
    params,
  });
  if (Object.hasOwn(response.data, 'error')) throw response.data.error;
  return response.data.result as T;
}

/** The latest ledger an answer reports (`getLatestLedger`'s `sequence`, or the `latestLedger` most answers carry). */
function latestLedgerOf(answer: unknown): number | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const record = answer as Record<string, unknown>;
  if (typeof record['latestLedger'] === 'number') return record['latestLedger'];
  if (typeof record['sequence'] === 'number' && 'protocolVersion' in record) return record['sequence'];
  return undefined;
}
