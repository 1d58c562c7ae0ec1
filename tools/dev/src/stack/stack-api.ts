import { randomBytes } from 'node:crypto';

/** An answer of the public API: its status and its body (JSON parsed; `{ text }` when it was not JSON). */
export interface ApiAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  /** A bearer API key. */
  key?: string;
  /** Sent as JSON; a string is sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface PartnerKeyRequest {
  email?: string;
  partner?: string;
  /** Requests per minute and burst; 100,000 each by default (room for any test). */
  rateLimit?: number;
  burst?: number;
  /** `X-Forwarded-For` of the admin call (a gateway that trusts one proxy hop keys its limits on it). */
  ip?: string;
}

export interface IssuedKey {
  apiKey: string;
  /** The key's id as the subscription service records it (what the gateway signs into the identity). */
  keyId: string;
  account: string;
}

/** The gateway's public API (`/api/v1`) as a test or a benchmark calls it. */
export interface StackApi {
  /** `<gateway>/api/v1`. */
  readonly url: string;
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options?: CallOptions): Promise<ApiAnswer>;
  /** A partner key from the admin route (`POST /keys/partners`); throws unless 201. */
  partnerKey(request?: PartnerKeyRequest): Promise<IssuedKey>;
}

export function stackApi(url: string, adminKey: string): StackApi {
  const call: StackApi['call'] = async (method, path, { key, body, headers } = {}) => {
    const answer = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await answer.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { text };
    }
    return { status: answer.status, body: parsed };
  };
  return {
    url,
    call,
    async partnerKey({ email, partner, rateLimit = 100_000, burst = 100_000, ip } = {}) {
      const issued = await call('POST', '/keys/partners', {
        headers: { 'x-admin-key': adminKey, ...(ip && { 'x-forwarded-for': ip }) },
        body: {
          email: email ?? `partner-${randomBytes(4).toString('hex')}@example.com`,
          rateLimit,
          burst,
          durationDays: 1,
          ...(partner !== undefined && { partner }),
        },
      });
      if (issued.status !== 201 || !issued.body.apiKey) {
        throw new Error(`partner key: ${issued.status} ${JSON.stringify(issued.body)}`);
      }
      return issued.body as IssuedKey;
    },
  };
}
