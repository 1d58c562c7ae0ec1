import type { PurchaseRefusal } from '@rp/ledger';
import type { KeySource } from '../owner/owner-sender';

export interface SubscriptionView {
  active: boolean;
  tier: string | null;
  expiresAt: string | null;
  /** Why the agent has no valid key or could not renew it (e.g. not enough USDC); absent when all is well. */
  error?: string;
  /** The latest 402 offer the purchase limits refused (nothing was signed); absent once an offer passes. */
  refusal?: { reason: PurchaseRefusal['reason']; message: string; at: string };
}

/**
 * The agent's access to the service, chosen once at start: its own key bought and kept (`SubscriptionKeeper`), or
 * the mock's played subscription (`PlayedSubscription`, no key).
 */
export interface Subscription extends KeySource {
  /** A key that has not expired, or undefined. */
  apiKey(): string | undefined;
  view(): SubscriptionView;
  /** Checks (and buys a key) when due, or now when `force`d. */
  checkIfDue(force?: boolean): Promise<void>;
  /** The service refused the key (401). */
  keyRejected(): Promise<void>;
}
