import { isContractAddress, isLedgerAccountAddress } from '@rp/contracts';
import { networkFromCaip2 } from '../network/ledger-network';
import { usdcContract } from '../network/usdc';
import { baseUnitsToUsd, usdToBaseUnits } from '../token/token-amount';
import type { ExactRequirements } from './x402-messages';

/**
 * What a buyer agrees to pay for an API key (DECISIONS.md, Agent: purchase limits). A `PAYMENT-REQUIRED` comes from
 * whoever answers at the service's address: nothing in it is trusted until it passes these limits, before anything
 * is signed.
 */
export interface PurchaseLimits {
  /** CAIP-2 id of the buyer's own network (`stellar:pubnet`, `stellar:testnet`). */
  network: string;
  /** The one asset it pays in (C-address). */
  asset: string;
  /** The most one payment may cost, in the asset's base units. */
  maxPrice: bigint;
  /** When set, the only receiver it pays. */
  payTo?: string;
  /** The most all payments signed in any 30 days may cost together; unset: no cap (a one-off purchase). */
  maxSpend30d?: bigint;
  /** The longest authorization it signs, in seconds (a signed payment can be settled until it expires). */
  maxTimeoutSeconds: number;
}

/** About 2.5 times the spec's $0.2026: room for a moderate price change, far from anything that hurts. */
export const DEFAULT_MAX_PRICE_USD = '0.50';
/** An hour: the service asks for 600 s (DECISIONS.md); a longer-lived authorization is not signed. */
export const MAX_AUTHORIZATION_SECONDS = 3600;
/** Stellar asset contracts, USDC included, count in 7 decimals. */
const STABLECOIN_DECIMALS = 7;

export type PurchaseRefusalReason =
  | 'no_offer'
  | 'malformed_offer'
  | 'wrong_scheme'
  | 'wrong_network'
  | 'wrong_asset'
  | 'wrong_pay_to'
  | 'authorization_too_long'
  | 'price_above_limit'
  | 'spend_cap_reached';

export interface PurchaseRefusal {
  reason: PurchaseRefusalReason;
  /** One sentence for the log and `/status`; it names the offending value and the limit. */
  message: string;
}

export interface PurchaseLimitSettings {
  /** CAIP-2 id of the buyer's network. */
  network: string;
  /** Decimal USD; `DEFAULT_MAX_PRICE_USD` when unset. */
  maxPriceUsd?: string;
  /** Decimal USD; no cap when unset. */
  maxSpend30dUsd?: string;
  /** C-address; the network's USDC when unset. */
  asset?: string;
  payTo?: string;
}

/** Limits from settings in decimal USD (exact arithmetic on the strings, never a float). */
export function purchaseLimits(settings: PurchaseLimitSettings): PurchaseLimits {
  return {
    network: settings.network,
    asset: settings.asset ?? usdcContract(networkFromCaip2(settings.network)),
    maxPrice: usdToBaseUnits(settings.maxPriceUsd ?? DEFAULT_MAX_PRICE_USD, STABLECOIN_DECIMALS),
    ...(settings.payTo && { payTo: settings.payTo }),
    ...(settings.maxSpend30dUsd !== undefined && {
      maxSpend30d: usdToBaseUnits(settings.maxSpend30dUsd, STABLECOIN_DECIMALS),
    }),
    maxTimeoutSeconds: MAX_AUTHORIZATION_SECONDS,
  };
}

const usd = (amount: bigint) => `$${baseUnitsToUsd(amount, STABLECOIN_DECIMALS)}`;
const AMOUNT = /^[0-9]{1,38}$/;

/**
 * Why one offer of a `PAYMENT-REQUIRED` (`accepts[i]`) must not be paid, or `undefined` when it may: scheme
 * `exact`, the buyer's network, its asset, its receiver when pinned, an authorization of bounded life, a price
 * within `maxPrice`, and `spent30d` (what the buyer signed in the last 30 days) plus the price within the cap.
 */
export function refusalOfOffer(offer: unknown, limits: PurchaseLimits, spent30d: bigint): PurchaseRefusal | undefined {
  if (!isOffer(offer)) {
    return { reason: 'malformed_offer', message: 'the payment offer is not an x402 exact requirement' };
  }
  if (offer.scheme !== 'exact') {
    return { reason: 'wrong_scheme', message: `the offer's scheme ${offer.scheme} is not exact` };
  }
  if (offer.network !== limits.network) {
    return { reason: 'wrong_network', message: `the offer's network ${offer.network} is not ${limits.network}` };
  }
  if (offer.asset !== limits.asset) {
    return {
      reason: 'wrong_asset',
      message: `the offer's asset ${offer.asset} is not SERVICE_PAYMENT_ASSET ${limits.asset}`,
    };
  }
  if (limits.payTo !== undefined && offer.payTo !== limits.payTo) {
    return { reason: 'wrong_pay_to', message: `the offer pays ${offer.payTo}, not SERVICE_PAY_TO ${limits.payTo}` };
  }
  if (offer.maxTimeoutSeconds > limits.maxTimeoutSeconds) {
    return {
      reason: 'authorization_too_long',
      message: `the offer's authorization lives ${offer.maxTimeoutSeconds} s, more than ${limits.maxTimeoutSeconds} s`,
    };
  }
  const price = BigInt(offer.amount);
  if (price > limits.maxPrice) {
    return {
      reason: 'price_above_limit',
      message: `the offer's price ${usd(price)} is above SERVICE_MAX_PRICE ${usd(limits.maxPrice)}`,
    };
  }
  if (limits.maxSpend30d !== undefined && spent30d + price > limits.maxSpend30d) {
    return {
      reason: 'spend_cap_reached',
      message:
        `paying ${usd(price)} after ${usd(spent30d)} in the last 30 days would pass SERVICE_MAX_SPEND_30D ` +
        usd(limits.maxSpend30d),
    };
  }
  return undefined;
}

/** The first offer of `accepts` the limits allow, or the refusal of the first one when none is allowed. */
export function chooseOffer(
  accepts: unknown,
  limits: PurchaseLimits,
  spent30d: bigint,
): { offer: ExactRequirements } | { refusal: PurchaseRefusal } {
  const offers = Array.isArray(accepts) ? (accepts as unknown[]) : [];
  if (offers.length === 0) return { refusal: { reason: 'no_offer', message: 'the 402 answer offers no payment' } };
  let first: PurchaseRefusal | undefined;
  for (const offer of offers) {
    const refusal = refusalOfOffer(offer, limits, spent30d);
    if (!refusal) return { offer: offer as ExactRequirements };
    first ??= refusal;
  }
  return { refusal: first as PurchaseRefusal };
}

function isOffer(value: unknown): value is ExactRequirements {
  if (typeof value !== 'object' || value === null) return false;
  const offer = value as Record<string, unknown>;
  const extra = offer['extra'];
  return (
    typeof offer['scheme'] === 'string' &&
    typeof offer['network'] === 'string' &&
    typeof offer['amount'] === 'string' &&
    AMOUNT.test(offer['amount']) &&
    BigInt(offer['amount']) > 0n &&
    isContractAddress(offer['asset']) &&
    isLedgerAccountAddress(offer['payTo']) &&
    Number.isSafeInteger(offer['maxTimeoutSeconds']) &&
    (offer['maxTimeoutSeconds'] as number) > 0 &&
    typeof extra === 'object' &&
    extra !== null &&
    (extra as Record<string, unknown>)['areFeesSponsored'] === true
  );
}
