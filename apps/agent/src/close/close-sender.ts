import { type SignedAhead, sendSigned, transactionState } from '@rp/ledger';
import type { LedgerView } from '../ledger/ledger-view';
import { ServiceClient, ServiceRefusedError, ServiceUnavailableError, KeyRejectedError } from '../service/service-client';

export type SendResult =
  | { readonly accepted: true; readonly hash: string; readonly via: 'service' | 'ledger' }
  | { readonly accepted: false; readonly hash: string; readonly error: string };

export type FinalState =
  | { readonly state: 'confirmed'; readonly ledger: number }
  | { readonly state: 'failed'; readonly error: string };

/** A transaction not seen once a ledger closed this long after its time bound can never be included. */
const TOO_LATE_GRACE_S = 6;

/**
 * Sends a signed close and follows it to its final state on the agent's own RPC. A close txb built goes through
 * `POST /txb/submit` (its proposal is then tracked by the service too); if the service does not answer, or the
 * agent built the close itself, it goes straight to `sendTransaction`.
 */
export class CloseSender {
  constructor(
    private readonly ledger: LedgerView,
    private readonly service: ServiceClient,
    private readonly followIntervalMs: number,
  ) {}

  async send(signed: SignedAhead, apiKey: string | undefined): Promise<SendResult> {
    if (apiKey) {
      try {
        const answer = await this.service.submit(apiKey, signed.envelope);
        return { accepted: true, hash: answer.txHash || signed.hash, via: 'service' };
      } catch (error) {
        if (error instanceof ServiceRefusedError && error.code !== 'PROPOSAL_NOT_FOUND') {
          const resultCode = typeof error.body['resultCode'] === 'string' ? error.body['resultCode'] : '';
          return { accepted: false, hash: signed.hash, error: `${error.code}${resultCode ? ` ${resultCode}` : ''}` };
        }
        if (
          !(error instanceof ServiceUnavailableError) &&
          !(error instanceof KeyRejectedError) &&
          !(error instanceof ServiceRefusedError)
        ) {
          throw error;
        }
        // The service is down or no longer knows the proposal: the ledger itself takes the transaction.
      }
    }
    const answer = await sendSigned(this.ledger.rpc, signed.transaction);
    if (answer.status === 'PENDING' || answer.status === 'DUPLICATE') {
      return { accepted: true, hash: answer.hash, via: 'ledger' };
    }
    return {
      accepted: false,
      hash: answer.hash,
      error: answer.status === 'ERROR' ? `SUBMISSION_FAILED ${answer.resultCode}` : 'TRY_AGAIN_LATER',
    };
  }

  /** Polls the ledger until the transaction is in a ledger or can no longer be. */
  async follow(hash: string, validUntil: number, stopped: () => boolean = () => false): Promise<FinalState> {
    for (;;) {
      try {
        const state = await transactionState(this.ledger.rpc, hash);
        if (state.state === 'SUCCESS') return { state: 'confirmed', ledger: state.ledger };
        if (state.state === 'FAILED') return { state: 'failed', error: `ledger FAILED ${state.resultCode}` };
        if (validUntil > 0 && state.closedAt > validUntil + TOO_LATE_GRACE_S) {
          return { state: 'failed', error: 'txTooLate: not included before its time bound' };
        }
      } catch {
        // The RPC did not answer: ask again.
      }
      if (stopped()) return { state: 'failed', error: 'agent stopped while following' };
      await new Promise((resolve) => setTimeout(resolve, this.followIntervalMs));
    }
  }
}
