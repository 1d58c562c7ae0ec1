import { type SendAnswer, type SignedAhead, sendSigned, transactionState } from '@rp/ledger';
import type { LedgerView } from '../ledger/ledger-view';
import { KeyRejectedError, type ServiceClient, ServiceRefusedError, ServiceUnavailableError } from '../service/service-client';

export type SendResult =
  | { readonly accepted: true; readonly hash: string; readonly via: 'service' | 'ledger' }
  | { readonly accepted: false; readonly hash: string; readonly error: string };

export type FinalState =
  | { readonly state: 'confirmed'; readonly ledger: number }
  | { readonly state: 'failed'; readonly error: string };

/** A transaction not seen once a ledger closed this long after its time bound can never be included. */
const TOO_LATE_GRACE_S = 6;

/**
 * Sends a signed close and follows it to its final state on the agent's own RPC. The agent's RPC gets it first
 * (`sendTransaction`: nothing between the decision and the network); a close txb built is then also handed to
 * `POST /txb/submit`, in the background, so the service tracks its proposal (the network answers that copy
 * `DUPLICATE`, which txb counts as submitted). When the agent's RPC does not answer or is busy, txb's submit is
 * the way to the network.
 */
export class CloseSender {
  constructor(
    readonly ledger: LedgerView,
    private readonly service: ServiceClient,
    readonly followIntervalMs: number,
    private readonly onTrackingFailure: (error: Error) => void = () => undefined,
  ) {}

  /**
   * `queuedBefore`: an earlier transaction of the same close may still wait in the network's queue (a re-priced
   * close): the RPC's `TRY_AGAIN_LATER` then means that one waits, and is the answer (txb's submit is not tried).
   */
  async send(signed: SignedAhead, apiKey: string | undefined, queuedBefore = false): Promise<SendResult> {
    let direct: SendAnswer | undefined;
    try {
      direct = await sendSigned(this.ledger.rpc, signed.transaction);
    } catch (error) {
      if (!apiKey) throw error;
    }
    if (direct?.status === 'PENDING' || direct?.status === 'DUPLICATE') {
      if (apiKey) void this.service.submit(apiKey, signed.envelope).catch((error: Error) => this.onTrackingFailure(error));
      return { accepted: true, hash: direct.hash, via: 'ledger' };
    }
    if (direct?.status === 'ERROR') {
      return { accepted: false, hash: direct.hash, error: `SUBMISSION_FAILED ${direct.resultCode}` };
    }
    if (!apiKey || (queuedBefore && direct?.status === 'TRY_AGAIN_LATER')) {
      return { accepted: false, hash: signed.hash, error: 'TRY_AGAIN_LATER' };
    }
    // The agent's RPC failed or is busy: txb's submit sends it (with retries) through the service's RPC.
    try {
      const answer = await this.service.submit(apiKey, signed.envelope);
      return { accepted: true, hash: answer.txHash || signed.hash, via: 'service' };
    } catch (error) {
      if (error instanceof ServiceRefusedError) {
        const resultCode = typeof error.body['resultCode'] === 'string' ? error.body['resultCode'] : '';
        return { accepted: false, hash: signed.hash, error: `${error.code}${resultCode ? ` ${resultCode}` : ''}` };
      }
      if (error instanceof ServiceUnavailableError || error instanceof KeyRejectedError) {
        return { accepted: false, hash: signed.hash, error: `neither the RPC nor the service took it: ${error.message}` };
      }
      throw error;
    }
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
