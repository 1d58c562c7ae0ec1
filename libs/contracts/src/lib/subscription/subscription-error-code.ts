/**
 * Codes of the subscription service and of the gateway's key checks. A refused payment is a 402 whose code names
 * the exact-scheme rule it broke; nothing is recorded and nothing moves for it.
 */
export const SubscriptionErrorCode = {
  PAYMENT_REQUIRED: 'PAYMENT_REQUIRED',
  PAYMENT_NOT_CONFIGURED: 'PAYMENT_NOT_CONFIGURED',
  PAYMENT_VERSION_UNSUPPORTED: 'PAYMENT_VERSION_UNSUPPORTED',
  PAYMENT_SCHEME_UNSUPPORTED: 'PAYMENT_SCHEME_UNSUPPORTED',
  PAYMENT_NETWORK_MISMATCH: 'PAYMENT_NETWORK_MISMATCH',
  PAYMENT_WRONG_OPERATION: 'PAYMENT_WRONG_OPERATION',
  PAYMENT_WRONG_ASSET: 'PAYMENT_WRONG_ASSET',
  PAYMENT_WRONG_RECIPIENT: 'PAYMENT_WRONG_RECIPIENT',
  PAYMENT_WRONG_AMOUNT: 'PAYMENT_WRONG_AMOUNT',
  PAYMENT_SPONSOR_AS_PAYER: 'PAYMENT_SPONSOR_AS_PAYER',
  PAYMENT_UNSIGNED: 'PAYMENT_UNSIGNED',
  PAYMENT_BAD_SIGNATURE: 'PAYMENT_BAD_SIGNATURE',
  PAYMENT_UNSAFE_AUTHORIZATION: 'PAYMENT_UNSAFE_AUTHORIZATION',
  PAYMENT_EXPIRED: 'PAYMENT_EXPIRED',
  PAYMENT_EXPIRES_TOO_LATE: 'PAYMENT_EXPIRES_TOO_LATE',
  PAYMENT_SIMULATION_FAILED: 'PAYMENT_SIMULATION_FAILED',
  /** transfer(payTo, payTo, amount): it would move nothing. */
  PAYMENT_SELF_TRANSFER: 'PAYMENT_SELF_TRANSFER',
  /** The payment's settlement failed on the ledger earlier: it is refused without asking the ledger again. */
  PAYMENT_FAILED_ON_LEDGER: 'PAYMENT_FAILED_ON_LEDGER',
  PAYMENT_REPLAYED: 'PAYMENT_REPLAYED',
  /** The same payment is being settled right now: ask again after Retry-After. */
  PAYMENT_IN_PROGRESS: 'PAYMENT_IN_PROGRESS',
  /** The payer's payments keep failing on the ledger: its next one waits (429, Retry-After). */
  PAYER_COOLING_DOWN: 'PAYER_COOLING_DOWN',
  /** Our own contention (every settlement lane busy, fees above our cap): not the payment's fault (503). */
  SETTLEMENT_BUSY: 'SETTLEMENT_BUSY',
  LEDGER_UNAVAILABLE: 'LEDGER_UNAVAILABLE',
  SUBSCRIPTION_NOT_FOUND: 'SUBSCRIPTION_NOT_FOUND',
  KEY_NOT_FOUND: 'KEY_NOT_FOUND',
  ADMIN_NOT_CONFIGURED: 'ADMIN_NOT_CONFIGURED',
  INVALID_ADMIN_KEY: 'INVALID_ADMIN_KEY',
  API_KEY_REQUIRED: 'API_KEY_REQUIRED',
  INVALID_API_KEY: 'INVALID_API_KEY',
  KEY_EXPIRED: 'KEY_EXPIRED',
} as const;
export type SubscriptionErrorCode = (typeof SubscriptionErrorCode)[keyof typeof SubscriptionErrorCode];
