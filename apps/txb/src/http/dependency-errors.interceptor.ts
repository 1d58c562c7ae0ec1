import { Injectable } from '@nestjs/common';
import { TxbErrorCode } from '@rp/contracts';
import { ApiError, DependencyErrorsInterceptor as PlatformDependencyErrors } from '@rp/platform';
import { dependencyError } from './txb-http-errors';

/**
 * Routes of txb answer within a deadline, and failures of the ledger RPC or Redis become their own 502 / 503
 * instead of a 500: no input may produce a 5xx of ours, and an outage is told apart from a bug.
 */
@Injectable()
export class DependencyErrorsInterceptor extends PlatformDependencyErrors {
  protected translate(error: unknown): ApiError | undefined {
    return dependencyError(error);
  }

  protected deadlineMissed(): ApiError {
    return new ApiError(502, TxbErrorCode.LEDGER_UNAVAILABLE, 'The ledger did not answer in time');
  }
}
