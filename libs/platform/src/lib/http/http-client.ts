import { Injectable } from '@nestjs/common';
import { REQUEST_ID_HEADER, currentRequestId } from '../logging/request-context';

export type UpstreamFailure = 'timeout' | 'unreachable';

/** An outgoing call that got no HTTP answer at all. An answer with any status is not an error here. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';

  constructor(
    readonly failure: UpstreamFailure,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(failure === 'timeout' ? `no answer from ${url} in time` : `cannot reach ${url}`, options);
  }
}

export interface OutgoingRequest extends RequestInit {
  /** Abort when the whole exchange takes longer; default 10 s. */
  timeoutMs?: number;
}

/** fetch for calls to other services and providers: carries the current request id and never hangs. */
@Injectable()
export class HttpClient {
  async fetch(url: string, request: OutgoingRequest = {}): Promise<Response> {
    const { timeoutMs = 10_000, ...init } = request;
    const headers = new Headers(init.headers);
    const requestId = currentRequestId();
    if (requestId && !headers.has(REQUEST_ID_HEADER)) headers.set(REQUEST_ID_HEADER, requestId);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await fetch(url, { ...init, headers, signal });
    } catch (error) {
      if (timeout.aborted) throw new UpstreamError('timeout', url, { cause: error });
      if (init.signal?.aborted) throw error;
      throw new UpstreamError('unreachable', url, { cause: error });
    }
  }
}
