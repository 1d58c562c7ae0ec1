import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { TxbErrorCode } from '@rp/contracts';
import { ApiError } from '@rp/platform';
import { type Observable, TimeoutError, catchError, throwError, timeout } from 'rxjs';
import { dependencyError } from './txb-http-errors';

/** Under the gateway's 30 s: the caller gets our 502, not the gateway's 504. */
const ROUTE_DEADLINE_MS = 25_000;

/**
 * Routes of txb answer within a deadline, and failures of the ledger RPC or Redis become their own 502 / 503
 * instead of a 500: no input may produce a 5xx of ours, and an outage is told apart from a bug.
 */
@Injectable()
export class DependencyErrorsInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      timeout(ROUTE_DEADLINE_MS),
      catchError((error: unknown) => {
        if (error instanceof TimeoutError) {
          return throwError(
            () => new ApiError(502, TxbErrorCode.LEDGER_UNAVAILABLE, 'The ledger did not answer in time'),
          );
        }
        return throwError(() => dependencyError(error) ?? error);
      }),
    );
  }
}
