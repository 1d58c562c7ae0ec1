import { facilitatorRefusal } from './payment-refusals';

describe("the facilitator's reasons as our codes", () => {
  it.each([
    ['invalid_exact_stellar_payload_wrong_amount', 402, 'PAYMENT_WRONG_AMOUNT'],
    ['invalid_exact_stellar_payload_event_wrong_to', 402, 'PAYMENT_WRONG_RECIPIENT'],
    ['invalid_exact_stellar_payload_simulation_failed', 402, 'PAYMENT_SIMULATION_FAILED'],
    ['invalid_exact_stellar_payload_facilitator_is_payer', 402, 'PAYMENT_SPONSOR_AS_PAYER'],
    ['invalid_exact_stellar_signature_expiration_too_far', 402, 'PAYMENT_EXPIRES_TOO_LATE'],
    ['settle_exact_stellar_transaction_failed', 402, 'PAYMENT_SETTLEMENT_FAILED'],
    ['a_reason_added_in_a_later_release', 402, 'PAYMENT_SETTLEMENT_FAILED'],
    ['unexpected_verify_error', 502, 'LEDGER_UNAVAILABLE'],
  ])('%s -> %s %s', (reason, status, code) => {
    expect(facilitatorRefusal(reason)).toEqual({ status, code });
  });
});
