import type { components } from '../generated/api';

/** The body of every error answer of the API. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type ErrorDetail = NonNullable<ErrorEnvelope['details']>[number];

/** The header every answer carries the exchange's id in (sent by the client, or chosen by the gateway). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * An error answer of the API, read from its envelope: `status`, the stable `code` (`VALIDATION_FAILED`,
 * `RATE_LIMITED`, ...), the human `message`, one `details` entry per invalid field, the `requestId` to quote to
 * support, and for a 429 or 202-style answer the `Retry-After` seconds. `body` is the whole answer (the 402 adds
 * the payment requirements). An answer that is not an envelope (a proxy's HTML page) gets the code `HTTP_<status>`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[],
    readonly requestId: string | undefined,
    readonly retryAfterSeconds: number | undefined,
    readonly body: unknown,
  ) {
    super(message);
  }

  /** The error of `response`, whose body `openapi-fetch` has already read into `body`. */
  static of(response: Response, body: unknown): ApiError {
    const envelope = isEnvelope(body) ? body : undefined;
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    return new ApiError(
      response.status,
      envelope?.code ?? `HTTP_${response.status}`,
      envelope?.error ?? (text || `${response.status} ${response.statusText}`.trim()),
      envelope?.details ?? [],
      envelope?.requestId ?? response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      retryAfterSeconds(response.headers.get('Retry-After')),
      body,
    );
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null) return false;
  const candidate = body as Partial<ErrorEnvelope>;
  return typeof candidate.code === 'string' && typeof candidate.error === 'string';
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
