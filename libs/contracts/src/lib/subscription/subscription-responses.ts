import type { CallerIdentity, KeyTier } from './api-key';

/** Answer of subscribe and complete (spec, Subscription grant). */
export interface SubscriptionGrant {
  apiKey: string;
  tier: KeyTier;
  rateLimit: number;
  expiresAt: string;
  durationDays: number;
  network: string;
  /** Direct flow only. */
  message?: string;
  /** Server-assisted flow only. */
  payTo?: string;
}

/**
 * Answer (202) of subscribe and complete when the payment's settlement has been sent but is not yet final within
 * the settlement bound. The same request sent again collects the grant once it is (DECISIONS.md, Subscription).
 */
export interface SettlingPayment {
  status: 'settling';
  /** The settlement's hash: look it up on the ledger. How long to wait is in `Retry-After`. */
  txHash: string;
}

/** Answer of prepare (spec, Prepared payment). */
export interface PreparedPayment {
  txJson: string;
  preimageXdrs: string[];
  maxLedger: number;
  networkPassphrase: string;
  x402Version: number;
}

/** Answer of status (spec, Subscription status). */
export interface SubscriptionStatus {
  active: boolean;
  tier: KeyTier;
  rateLimit: number;
  expiresAt: string;
  lastPayment: { network: string; amountUsd: string; txHash: string; paidAt: string };
  /** Present while a payment of this email is being settled (its outcome not yet on the ledger). */
  settling?: { txHash: string; since: string };
}

/** Answer of `GET /api/v1/keys/me`: the key the call was made with. */
export type KeyDescription = CallerIdentity;
