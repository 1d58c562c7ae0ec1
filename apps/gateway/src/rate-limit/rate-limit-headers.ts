import { ErrorCode } from '@rp/contracts';
import { ApiError } from '@rp/platform';
import type { Response } from 'express';
import { BucketDecision } from './token-bucket';

/** `RateLimit-Limit` (capacity), `RateLimit-Remaining`, `RateLimit-Reset` (whole seconds until full). */
export function setRateLimitHeaders(res: Response, decision: BucketDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(Math.ceil(decision.msUntilFull / 1000)));
}

/** 429 with `Retry-After`: whole seconds until the next token, at least 1. */
export function rateLimited(decision: BucketDecision): ApiError {
  const seconds = Math.max(1, Math.ceil(decision.msUntilOne / 1000));
  return new ApiError(429, ErrorCode.RATE_LIMITED, `Too many requests; retry in ${seconds} s`, {
    headers: { 'Retry-After': String(seconds) },
  });
}
