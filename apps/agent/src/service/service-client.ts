import { API_KEY_HEADER, type Answer, ApiError, type RpClient, createRpClient } from '@rp/client';
import type { RiskResponse } from '@rp/contracts';

/** The service did not answer usefully (unreachable, 5xx, route missing, rate limited): fall back to the ledger. */
export class ServiceUnavailableError extends Error {
  override readonly name = 'ServiceUnavailableError';
}

/** The API key was refused (401): it lapsed or was never valid. */
export class KeyRejectedError extends Error {
  override readonly name = 'KeyRejectedError';
}

/** A 4xx with the error envelope: the service understood and refused (e.g. `SUBMISSION_FAILED`). */
export class ServiceRefusedError extends Error {
  override readonly name = 'ServiceRefusedError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/** What the agent asks txb to build: an UNWIND (or a RESCUE from an auction) of its own wallet's position in one pool. */
export interface UnwindBuildRequest {
  action?: 'UNWIND' | 'RESCUE';
  walletAddress: string;
  poolAddress: string;
  slippageBps: number;
  targetHealthFactor?: number;
}

/**
 * The service's API as the agent uses it, through the gateway with its API key (`@rp/client`). A 429 is not waited
 * for: the agent reads the ledger instead, so each call is one attempt within `timeoutMs`.
 */
export class ServiceClient {
  private readonly api: RpClient;

  constructor(baseUrl: string, timeoutMs = 10_000) {
    this.api = createRpClient({ baseUrl, maxAttempts: 1, timeoutMs });
  }

  /** The risk route's answer (notifications: `GET /api/v1/rms/risk/:walletAddress`), typed by `@rp/contracts`. */
  risk(apiKey: string, walletAddress: string): Promise<RiskResponse> {
    return this.call<RiskResponse>('GET /api/v1/rms/risk', () =>
      this.api.GET('/api/v1/rms/risk/{walletAddress}', {
        params: { path: { walletAddress } },
        headers: { [API_KEY_HEADER]: apiKey },
      }),
    );
  }

  /** txb's answer to a build (`POST /api/v1/txb/build`, operation `buildTransaction`). */
  build(apiKey: string, request: UnwindBuildRequest): Promise<Answer<'buildTransaction'>> {
    return this.call('POST /api/v1/txb/build', () =>
      this.api.POST('/api/v1/txb/build', {
        body: { ...request, action: request.action ?? 'UNWIND' },
        headers: { [API_KEY_HEADER]: apiKey },
      }),
    );
  }

  submit(apiKey: string, transactionXdr: string): Promise<Answer<'submitTransaction'>> {
    return this.call('POST /api/v1/txb/submit', () =>
      this.api.POST('/api/v1/txb/submit', { body: { transactionXdr }, headers: { [API_KEY_HEADER]: apiKey } }),
    );
  }

  private async call<T>(
    route: string,
    send: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T> {
    let answer: { data?: T; error?: unknown; response: Response };
    try {
      answer = await send();
    } catch (error) {
      throw new ServiceUnavailableError(`${route}: ${(error as Error).message}`);
    }
    const { status } = answer.response;
    if ((status === 200 || status === 201) && answer.error === undefined) return answer.data as T;
    const { code, message, body } = ApiError.of(answer.response, answer.error);
    if (status === 401) throw new KeyRejectedError(`${route}: ${code}`);
    // A route the gateway does not know (the service not deployed), rate limits and server trouble: unavailable.
    if (
      status >= 500 ||
      status === 429 ||
      (status === 404 && code !== 'PROPOSAL_NOT_FOUND' && code !== 'NO_POSITION_FOUND')
    ) {
      throw new ServiceUnavailableError(`${route}: ${status} ${code}`);
    }
    throw new ServiceRefusedError(status, code, message, isRecord(body) ? body : {});
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
