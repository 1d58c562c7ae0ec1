import type { PaymentRefusal } from './payment-refusals';
import type { PaymentRecord } from './payment.repository';

/**
 * What became of a claimed payment: the one outcome of taking a payment, said by the settlement itself (settled,
 * still settling, or refused with why) and by the checks before it. The purchase only puts a key in place of
 * `paid` (`PurchaseOutcome`); the HTTP edge turns each refusal into a status and a code (`PaymentAnswers`).
 */
export type PaymentOutcome =
  /** Settled, now or before (`recovered`: the identical payment again, to collect a key whose answer was lost). */
  | { kind: 'paid'; record: PaymentRecord; recovered: boolean }
  /** Sent, not yet final within the settlement bound (202): the same payment again collects the key. */
  | { kind: 'settling'; record: PaymentRecord; txHash: string; retryAfterSeconds: number }
  | { kind: 'refused'; refusal: PaymentRefusal };

export function refused(refusal: PaymentRefusal): Extract<PaymentOutcome, { kind: 'refused' }> {
  return { kind: 'refused', refusal };
}
