import { type AccountEventRequest, type AccountEventType, type RiskLevel } from '@rp/contracts';

/**
 * An account's event as a delivery job carries it: the request's fields (plain JSON, only those given) and the id
 * its deliveries and DLQ entries go by (`deliveryId`, derived from the account and the caller's `eventId`).
 */
export type AccountEventNotice = Omit<AccountEventRequest, never> & { deliveryId: string };

/**
 * The level each event is shown at (the message's colour) and, for the types that repeat, held back at by the
 * pipeline's cooldown: `refused` and `standby_took_over` 10 minutes, `fee_balance_low` and `subscription_lapsed` 30
 * minutes, `subscription_renewed` an hour. Closes are never held back.
 */
export const EVENT_LEVEL: Readonly<Record<AccountEventType, RiskLevel>> = {
  close_sent: 'high',
  close_confirmed: 'low',
  close_failed: 'critical',
  refused: 'high',
  fee_balance_low: 'medium',
  subscription_lapsed: 'medium',
  subscription_renewed: 'low',
  standby_took_over: 'high',
};

export const UNHELD_EVENTS: ReadonlySet<AccountEventType> = new Set(['close_sent', 'close_confirmed', 'close_failed']);

const FIELDS = [
  'eventId',
  'type',
  'walletAddress',
  'occurredAt',
  'poolAddress',
  'healthFactorBefore',
  'healthFactorAfter',
  'txHash',
  'source',
  'reason',
  'detail',
  'nativeBalance',
  'expiresAt',
] as const satisfies readonly (keyof AccountEventRequest)[];

/** The validated request as a plain object of the fields given (nothing else travels into the queue). */
export function noticeOf(request: AccountEventRequest, deliveryId: string): AccountEventNotice {
  const notice: Record<string, unknown> = { deliveryId };
  for (const field of FIELDS) if (request[field] !== undefined) notice[field] = request[field];
  return notice as AccountEventNotice;
}
