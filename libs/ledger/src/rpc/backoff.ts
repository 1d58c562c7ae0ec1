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

/** Rejects with `AttemptTimeout` after `ms`; the timer is always cleared so it never holds the process open. */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
