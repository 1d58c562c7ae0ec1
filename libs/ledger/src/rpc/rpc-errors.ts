export type LedgerRpcErrorKind = 'timeout' | 'unreachable' | 'rejected' | 'try-again-later';

/** How one failed attempt is handled: retried or not, and whether its endpoint should be rested. */
export interface AttemptFailure {
  kind: LedgerRpcErrorKind;
  retryable: boolean;
  /** The endpoint itself is at fault (no answer, 5xx, 429): the next attempt goes elsewhere. */
  failover: boolean;
  /** Short, body-free description: `HTTP 503`, `ECONNREFUSED`, `JSON-RPC -32602`. */
  detail: string;
  rpcCode?: number;
  rpcMessage?: string;
  /** How long the endpoint asked to be left alone (`Retry-After` of a 429 or 503), in ms. */
  restMs?: number;
}

/**
 * A ledger RPC call that failed for good. The message names the method, endpoint origin and cause, never the
 * request body (it may hold a signed envelope) and never more of the URL than its origin (providers put API keys
 * in userinfo, paths and queries); the server's own error text is kept apart in `rpcMessage`.
 */
export class LedgerRpcError extends Error {
  override readonly name = 'LedgerRpcError';
  readonly kind: LedgerRpcErrorKind;
  readonly rpcCode?: number;
  readonly rpcMessage?: string;

  constructor(
    failure: AttemptFailure,
    readonly method: string,
    readonly endpoint: string,
    readonly attempts: number,
  ) {
    super(`ledger RPC ${method} ${failure.kind} at ${endpoint} after ${attempts} attempt(s): ${failure.detail}`);
    this.kind = failure.kind;
    this.rpcCode = failure.rpcCode;
    this.rpcMessage = failure.rpcMessage;
  }
}

/** The RPC serves another network than the one this client was configured for. */
export class NetworkMismatchError extends Error {
  override readonly name = 'NetworkMismatchError';

  constructor(
    readonly expectedPassphrase: string,
    readonly actualPassphrase: string,
  ) {
    super(`ledger RPC serves "${actualPassphrase}", expected "${expectedPassphrase}"`);
  }
}

/** Raised by our own per-attempt deadline. */
export class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_NETWORK',
  'ERR_SOCKET_CLOSED',
]);
// JSON-RPC "internal error" is the server's fault and may pass; every other code (invalid params, parse error,
// unknown method) is the caller's, and resending the same request cannot help.
const SERVER_FAULT_CODE = -32603;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const transport = (kind: LedgerRpcErrorKind, detail: string): AttemptFailure => ({
  kind,
  retryable: true,
  failover: true,
  detail,
});

/**
 * Sorts a thrown value into a failure we handle, or `undefined` for anything else (an SDK parse error, "Account
 * not found"), which the caller gets unchanged. Reads axios errors by shape: axios is not a dependency of ours.
 */
export function classifyFailure(error: unknown): AttemptFailure | undefined {
  if (error instanceof AttemptTimeout) return transport('timeout', 'no answer in time');
  if (!isRecord(error)) return undefined;
  const response = isRecord(error['response']) ? error['response'] : undefined;
  const status = typeof response?.['status'] === 'number' ? response['status'] : undefined;
  if (status !== undefined) {
    if (status >= 500 || status === 429) {
      const restMs = retryAfterMs(response?.['headers']);
      return { ...transport('unreachable', `HTTP ${status}`), ...(restMs !== undefined && { restMs }) };
    }
    return { kind: 'rejected', retryable: false, failover: false, detail: `HTTP ${status}` };
  }
  const code = typeof error['code'] === 'string' ? error['code'] : undefined;
  if (code && TIMEOUT_CODES.has(code)) return transport('timeout', code);
  if (code && NETWORK_CODES.has(code)) return transport('unreachable', code);
  // Any other failure of the HTTP client itself (an answer that is not HTTP, a redirect loop): the endpoint's
  // fault. Read as one, the client's own error (whose `config` holds the full URL, userinfo and query included)
  // never leaves this module.
  if (error['isAxiosError'] === true) return transport('unreachable', code ?? 'HTTP client error');
  // postObject throws the JSON-RPC `error` member itself: a plain object with a numeric code.
  if (!(error instanceof Error) && typeof error['code'] === 'number') {
    const rpcCode = error['code'];
    const rpcMessage = typeof error['message'] === 'string' ? error['message'].slice(0, 500) : undefined;
    const retryable = rpcCode === SERVER_FAULT_CODE;
    return { kind: 'rejected', retryable, failover: false, detail: `JSON-RPC ${rpcCode}`, rpcCode, rpcMessage };
  }
  return undefined;
}

/**
 * `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP date) of an answer's headers, in ms from now;
 * `undefined` when absent or unreadable. Headers are read by shape (axios' `AxiosHeaders` or a plain record).
 */
export function retryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
  if (!isRecord(headers)) return undefined;
  const getter = headers['get'];
  const raw: unknown =
    typeof getter === 'function' ? (getter as (name: string) => unknown).call(headers, 'retry-after') : undefined;
  const value = raw ?? headers['retry-after'] ?? headers['Retry-After'];
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value).trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
