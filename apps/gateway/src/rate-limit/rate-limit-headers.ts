import { ErrorCode } from '@rp/contracts';
import { ApiError, type HttpReply } from '@rp/platform';
import { BucketDecision } from './token-bucket';

/** `RateLimit-Limit` (capacity), `RateLimit-Remaining`, `RateLimit-Reset` (whole seconds until full). */
export function setRateLimitHeaders(reply: HttpReply, decision: BucketDecision): void {
  reply.headers(rateLimitHeaders(decision));
}

/** The `RateLimit-*` headers of a decision, by their lower-case names (as a reply holds them). */
export function rateLimitHeaders(decision: BucketDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  writeRateLimitHeaders(headers, decision);
  return headers;
}

/** The same headers, written into `headers` (the fast path's own headers of an answer). */
export function writeRateLimitHeaders(headers: Record<string, unknown>, decision: BucketDecision): void {
  headers['ratelimit-limit'] = String(decision.limit);
  headers['ratelimit-remaining'] = String(decision.remaining);
  headers['ratelimit-reset'] = String(Math.ceil(decision.msUntilFull / 1000));
}

/** 429 with `Retry-After`: whole seconds until the next token, at least 1. */
export function rateLimited(decision: BucketDecision): ApiError {
  const seconds = Math.max(1, Math.ceil(decision.msUntilOne / 1000));
  return new ApiError(429, ErrorCode.RATE_LIMITED, `Too many requests; retry in ${seconds} s`, {
    headers: { 'Retry-After': String(seconds) },
  });
}
