import { AttemptTimeout } from './rpc-errors';

const MAX_BACKOFF_MS = 5_000;

/** Exponential backoff with "equal jitter": half fixed, half random, so clients that failed together spread out. */
export function backoffDelay(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(baseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  return ceiling / 2 + random() * (ceiling / 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `work` with an `AbortSignal` that fires after `ms`, and rejects with `AttemptTimeout` at that moment. The
 * request given up on is aborted through the signal (its socket closed), so a slow answer does not keep running
 * beside the next attempt. The timer is always cleared so it never holds the process open.
 */
export async function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const timeout = new AttemptTimeout(`no answer within ${ms} ms`);
      reject(timeout);
      controller.abort(timeout);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
