import type { AccountEventRequest, RefusalSource } from '@rp/contracts';

/**
 * What the agent tells its wallet's owner (DECISIONS.md, Agent: owner's events), as the code that acts emits it. The
 * outbox stamps the id, wallet and time, keeps it in the database and the sender hands it to the service
 * (`POST /api/v1/rms/events`), which delivers it on the channels the operator set (`NOTIFY_*`).
 */
export type OwnerEvent =
  /** A close handed to the network, confirmed on the ledger, or failed (`detail` says why). */
  | {
      type: 'close_sent' | 'close_confirmed' | 'close_failed';
      poolAddress: string;
      healthFactorBefore: number | null;
      healthFactorAfter?: number | null;
      txHash?: string;
      detail?: string;
    }
  /** A transaction (built by the service or the agent) or a payment (a 402's offer) the agent refused to sign. */
  | { type: 'refused'; source: RefusalSource; reason: string; detail?: string; poolAddress?: string }
  /** The XLM that pays the fees fell below `LOW_FEE_BALANCE_XLM`. */
  | { type: 'fee_balance_low'; nativeBalance: string; detail?: string }
  /** The agent's API key is no longer valid (expired, refused): it protects from the ledger alone meanwhile. */
  | { type: 'subscription_lapsed'; reason: string; detail?: string; expiresAt?: string }
  /** A key was bought (first or renewed). */
  | { type: 'subscription_renewed'; expiresAt: string; txHash?: string; detail?: string }
  /** This instance took the wallet over from another (which stopped or died). */
  | { type: 'standby_took_over'; detail?: string };

export type OwnerEventType = OwnerEvent['type'];

/** The one interface the acting code needs: emit and go on. `emit` never throws (a failure is logged). */
export interface OwnerEvents {
  emit(event: OwnerEvent): Promise<void>;
}

/** When the operator set no `NOTIFY_*` channel: nothing is kept, nothing is sent. */
export const NO_OWNER_EVENTS: OwnerEvents = { emit: async () => undefined };

/** The request body of one stored event (the service's `AccountEventRequest`). */
export type OwnerEventBody = Omit<AccountEventRequest, 'type'> & { type: OwnerEventType };
