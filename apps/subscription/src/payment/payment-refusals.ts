import type { ExactRule } from '@rp/ledger';

/**
 * Why a payment was not taken, as the payment service says it; the HTTP edge (subscribe/payment-answers.ts) turns
 * each into a status and a code. Nothing moved and nothing was charged for any of them, except `failed_on_ledger`
 * (the ledger kept the fee, the payer's money stayed) and `collecting` (paid: the key is in another answer, or
 * collected again by sending the same payment).
 */
export type PaymentRefusal =
  /** The payment cannot be read (400, naming the field). */
  | { kind: 'malformed'; field: string; message: string }
  /** x402 version, scheme or network not ours (402). */
  | { kind: 'unsupported'; what: 'version' | 'scheme' | 'network'; detail: string }
  /** An exact-scheme rule broken, checked locally (402 naming it, and the field when one is to blame). */
  | { kind: 'rule'; rule: ExactRule; field?: string }
  /** Our simulation of the settlement failed or showed other effects than the transfer (402). */
  | { kind: 'simulation_failed'; detail: string }
  /** Its settlement failed on the ledger, now or before: refused for good, without asking the ledger (402). */
  | { kind: 'failed_on_ledger'; txHash?: string; failure: string }
  /** Used before, by another email or with an authorization now expired (409). */
  | { kind: 'replayed' }
  /** Being settled right now (409, Retry-After). */
  | { kind: 'in_progress'; txHash?: string; retryAfterSeconds: number }
  /**
   * Settled (paid), but another request collecting the same payment at this moment issued its key first (409,
   * Retry-After). The one live key is in that request's answer; the same payment sent again collects a fresh one.
   */
  | { kind: 'collecting'; txHash?: string; retryAfterSeconds: number }
  /** The payer's payments keep failing on the ledger (429, Retry-After). */
  | { kind: 'payer_cooling_down'; retryAfterSeconds: number }
  /** Our own contention or limits: every lane busy, fees above our cap, a send rejected (503, Retry-After). */
  | { kind: 'busy'; reason: string; retryAfterSeconds: number }
  /** The ledger could not be asked; nothing was sent (502). */
  | { kind: 'ledger_unavailable'; detail: string };
