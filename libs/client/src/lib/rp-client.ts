import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from '../generated/api';
import { ApiError, REQUEST_ID_HEADER, retryAfterSeconds } from './api-error';

/** The header the API key goes in (the API takes `Authorization: Bearer <key>` just as well). */
export const API_KEY_HEADER = 'X-API-Key';

export interface RpClientOptions {
  /** The gateway, e.g. `http://127.0.0.1:3000`; every path starts with `/api/v1`. */
  baseUrl: string;
  /** Sent as `X-API-Key` on every call that does not set its own key header. */
  apiKey?: string;
  /** Each call's `X-Request-Id` (its retries keep it); a random UUID by default. */
  requestId?: () => string;
  /** Attempts per call when the answer is 429, the first included (default 3; 1 never retries). */
  maxAttempts?: number;
  /** A 429 asking to wait longer than this many seconds is returned at once, not waited for (default 60). */
  maxRetryAfterSeconds?: number;
  /** Time limit of each attempt in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** What sends the requests (default the global `fetch`). */
  fetch?: (request: Request) => Promise<Response>;
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** The wait before retrying a 429 that names none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** The API's typed client: `api.GET('/api/v1/rms/risk/{walletAddress}', { params: { path: { walletAddress } } })`. */
export type RpClient = Client<paths>;

/** The JSON answer of an operation, by its `operationId` and status: `Answer<'getRisk'>`. */
export type Answer<Id extends keyof operations, Status extends number = 200> = operations[Id]['responses'] extends {
  [S in Status]: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The JSON request body of an operation, by its `operationId`: `RequestBody<'buildTransaction'>`. */
export type RequestBody<Id extends keyof operations> = operations[Id] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/**
 * A client of the API (openapi-fetch over the types generated from `docs/openapi.json`) that sends the key and a
 * request id with every call and retries a 429 after its `Retry-After`, a bounded number of times. Answers come
 * back as openapi-fetch gives them (`{ data, error, response }`); `unwrap` turns an error answer into an `ApiError`.
 */
export function createRpClient(options: RpClientOptions): RpClient {
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: sender(options) });
}

/** The answer's data, or the `ApiError` of its envelope: `const risk = await unwrap(api.GET(...))`. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw ApiError.of(response, error);
  return data as T;
}

function sender(options: RpClientOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS));
  const maxWait = options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const requestId = options.requestId ?? randomUUID;

  return async (request) => {
    const headers = request.headers;
    if (options.apiKey && !headers.has(API_KEY_HEADER) && !headers.has('authorization')) {
      headers.set(API_KEY_HEADER, options.apiKey);
    }
    if (!headers.has(REQUEST_ID_HEADER)) headers.set(REQUEST_ID_HEADER, requestId());
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= maxAttempts;
      // A body can be sent once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      const response = await send(new Request(sent, { signal: withTimeout(request.signal, timeoutMs) }));
      if (response.status !== 429 || last) return response;
      const waitSeconds = retryAfterSeconds(response.headers.get('Retry-After')) ?? DEFAULT_RETRY_AFTER_SECONDS;
      if (waitSeconds > maxWait) return response;
      await response.body?.cancel();
      await delay(waitSeconds * 1000, request.signal);
    }
  };
}

function withTimeout(signal: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
