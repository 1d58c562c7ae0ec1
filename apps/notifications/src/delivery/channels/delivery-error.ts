/**
 * How a send failed, which decides what happens next:
 * - `transient`: retried with exponential backoff (5xx, network, SMTP 4xx), an attempt spent;
 * - `rate-limited`: waits `retryAfterMs` without spending an attempt (429);
 * - `permanent`: straight to the DLQ (4xx other than 429, SMTP 5xx, bad configuration);
 * - `blocked`: Telegram 403, the wallet's messenger channel is disabled and the entry says so;
 * - `migrated`: Telegram group upgraded, the configuration takes `newChatId` and the message is resent.
 */
export type DeliveryFailureKind = 'transient' | 'rate-limited' | 'permanent' | 'blocked' | 'migrated';

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';

  constructor(
    readonly kind: DeliveryFailureKind,
    message: string,
    readonly extra: { retryAfterMs?: number; newChatId?: string; status?: number } = {},
  ) {
    super(message);
  }
}

/** HTTP status -> failure kind for the webhook and Bot API answers. */
export function kindOfStatus(status: number): DeliveryFailureKind {
  if (status === 429) return 'rate-limited';
  if (status >= 500 || status === 408) return 'transient';
  return 'permanent';
}

/** `Retry-After` in seconds (or an HTTP date), in ms; `fallbackMs` when absent or unreadable. */
export function retryAfterMs(header: string | null, fallbackMs = 1000): number {
  if (!header) return fallbackMs;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? fallbackMs : Math.max(0, at - Date.now());
}
