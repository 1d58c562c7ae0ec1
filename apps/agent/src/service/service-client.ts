import type { BuildResponse, RiskLevel } from '@rp/contracts';

/** One position as the risk route answers it (notifications: `GET /api/v1/rms/risk/:walletAddress`). */
export interface ServicePosition {
  address: string;
  poolAddress: string;
  riskLevel: RiskLevel;
  healthFactor: number | null;
  triggers: string[];
  collateralValueUsd: number;
  liabilityValueUsd: number;
  recommendedAction: string;
  evaluatedAt: string;
}

export interface RiskAnswer {
  success: true;
  walletAddress: string;
  positions: ServicePosition[];
  evaluatedAt: string;
  timestamp: string;
}

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

export interface UnwindBuildRequest {
  walletAddress: string;
  poolAddress: string;
  slippageBps: number;
  targetHealthFactor?: number;
}

/** The service's API as the agent uses it, through the gateway with its API key. */
export class ServiceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 10_000,
  ) {}

  risk(apiKey: string, wallet: string): Promise<RiskAnswer> {
    return this.call<RiskAnswer>(apiKey, 'GET', `/api/v1/rms/risk/${wallet}`);
  }

  build(apiKey: string, request: UnwindBuildRequest): Promise<BuildResponse> {
    return this.call<BuildResponse>(apiKey, 'POST', '/api/v1/txb/build', { action: 'UNWIND', ...request });
  }

  submit(apiKey: string, transactionXdr: string): Promise<{ success: boolean; txHash: string }> {
    return this.call(apiKey, 'POST', '/api/v1/txb/submit', { transactionXdr });
  }

  private async call<T>(apiKey: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let answer: Response;
    try {
      answer = await fetch(`${this.baseUrl.replace(/\/$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ServiceUnavailableError(`${method} ${path}: ${(error as Error).message}`);
    }
    const text = await answer.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = {};
    }
    if (answer.status === 200 || answer.status === 201) return parsed as T;
    const code = typeof parsed['code'] === 'string' ? parsed['code'] : `HTTP_${answer.status}`;
    const message = typeof parsed['error'] === 'string' ? parsed['error'] : text.slice(0, 200);
    if (answer.status === 401) throw new KeyRejectedError(`${method} ${path}: ${code}`);
    // A route the gateway does not know (the service not deployed), rate limits and server trouble: unavailable.
    if (answer.status >= 500 || answer.status === 429 || (answer.status === 404 && code !== 'PROPOSAL_NOT_FOUND' &&
      code !== 'NO_POSITION_FOUND')) {
      throw new ServiceUnavailableError(`${method} ${path}: ${answer.status} ${code}`);
    }
    throw new ServiceRefusedError(answer.status, code, message, parsed);
  }
}
