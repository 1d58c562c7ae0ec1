/**
 * x402 v2 messages as they travel in HTTP headers: base64 of JSON. The types are the subset of `@x402/core`'s
 * that the `exact` scheme on Stellar uses, written out so servers and clients do not depend on the core's
 * internals for a JSON shape.
 */
export const X402_VERSION = 2;

export interface ExactRequirements {
  scheme: 'exact';
  /** CAIP-2: `stellar:pubnet` or `stellar:testnet`. */
  network: string;
  /** Integer string in the asset's base units. */
  amount: string;
  /** SEP-41 token contract (C-address). */
  asset: string;
  /** Receiving account (G-address). */
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { areFeesSponsored: boolean };
}

export interface PaymentRequired {
  x402Version: number;
  error: string;
  resource: { url: string; description?: string; mimeType?: string };
  accepts: ExactRequirements[];
}

export interface PaymentPayload {
  x402Version: number;
  accepted: ExactRequirements;
  payload: { transaction: string };
  resource?: PaymentRequired['resource'];
}

export interface SettlementReceipt {
  success: boolean;
  transaction: string;
  network: string;
  payer?: string;
  errorReason?: string;
}

/** Headers of x402 v2, and the names this service also reads the payment from. */
export const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED';
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';
export const PAYMENT_HEADERS = ['X-PAYMENT-SIGNATURE', 'PAYMENT-SIGNATURE', 'X-PAYMENT'] as const;

export function encodeX402Header(message: PaymentRequired | PaymentPayload | SettlementReceipt): string {
  return Buffer.from(JSON.stringify(message), 'utf8').toString('base64');
}

/** Why a payment header could not be read; `field` names the part that is wrong. */
export class PaymentHeaderError extends Error {
  override readonly name = 'PaymentHeaderError';

  constructor(
    readonly field: string,
    /** What is wrong with `field`; the message is the two together. */
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Reads a payment header: strict base64 (standard or URL-safe) of a JSON object with `x402Version`,
 * `accepted` and `payload.transaction`. Any deviation is a `PaymentHeaderError` naming the part.
 */
export function decodePaymentHeader(value: string, header = 'X-PAYMENT-SIGNATURE'): PaymentPayload {
  const text = value.trim();
  if (text.length === 0 || text.length % 4 === 1 || !BASE64.test(text)) {
    throw new PaymentHeaderError(header, 'must be base64');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64').toString('utf8'),
    );
  } catch {
    throw new PaymentHeaderError(header, 'must be base64 of a JSON payment payload');
  }
  if (!isObject(parsed)) throw new PaymentHeaderError(header, 'must hold a JSON object');
  if (typeof parsed['x402Version'] !== 'number') {
    throw new PaymentHeaderError(`${header}.x402Version`, 'must be a number');
  }
  const accepted = parsed['accepted'];
  if (!isObject(accepted) || typeof accepted['scheme'] !== 'string' || typeof accepted['network'] !== 'string') {
    throw new PaymentHeaderError(`${header}.accepted`, 'must be the payment requirements the client chose');
  }
  const payload = parsed['payload'];
  if (!isObject(payload) || typeof payload['transaction'] !== 'string' || payload['transaction'].length === 0) {
    throw new PaymentHeaderError(`${header}.payload.transaction`, 'must be a base64 transaction envelope');
  }
  return parsed as unknown as PaymentPayload;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
