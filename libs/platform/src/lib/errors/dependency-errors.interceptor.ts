import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { type Observable, TimeoutError, catchError, throwError, timeout } from 'rxjs';
import type { ApiError } from './api-error';

/** Under the gateway's 30 s upstream timeout: the caller gets the service's 502, not the gateway's 504. */
export const ROUTE_DEADLINE_MS = 25_000;

/**
 * Routes that depend on the ledger (or Redis) answer within a deadline, and failures of those dependencies become
 * the service's own 502 / 503 instead of a 500: an outage is told apart from a bug. Each service says what its
 * dependencies' failures mean (`translate`) and what a missed deadline is (`deadlineMissed`).
 */
export abstract class DependencyErrorsInterceptor implements NestInterceptor {
  protected abstract translate(error: unknown): ApiError | undefined;
  protected abstract deadlineMissed(): ApiError;

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      timeout(ROUTE_DEADLINE_MS),
      catchError((error: unknown) =>
        throwError(() => (error instanceof TimeoutError ? this.deadlineMissed() : (this.translate(error) ?? error))),
      ),
    );
  }
}
