import { Injectable } from '@nestjs/common';
import { RiskErrorCode } from '@rp/contracts';
import { LedgerRpcError, MissingPriceError, NetworkMismatchError, PoolNotFoundError } from '@rp/ledger';
import { ApiError, DependencyErrorsInterceptor } from '@rp/platform';
import { RiskNotConfiguredError } from './rms-ledger';

/** What the ledger's failures mean to a caller of the risk routes (DECISIONS.md, status mapping). */
export function riskDependencyError(error: unknown): ApiError | undefined {
  if (error instanceof LedgerRpcError || error instanceof NetworkMismatchError) {
    return new ApiError(502, RiskErrorCode.LEDGER_UNAVAILABLE, 'The ledger RPC failed or did not answer', {
      cause: error,
    });
  }
  if (error instanceof RiskNotConfiguredError) {
    return new ApiError(503, RiskErrorCode.NOT_CONFIGURED, 'Risk evaluation is not configured on this server');
  }
  if (error instanceof PoolNotFoundError) {
    return new ApiError(503, RiskErrorCode.POOL_NOT_FOUND, `A watched pool is not a Blend pool: ${error.poolId}`);
  }
  if (error instanceof MissingPriceError) {
    return new ApiError(
      502,
      RiskErrorCode.PRICE_UNAVAILABLE,
      `The pool's oracle has no usable price for ${error.asset}`,
    );
  }
  return undefined;
}

/** Risk routes answer within a deadline; ledger failures become their own 502 / 503 instead of a 500. */
@Injectable()
export class RiskErrorsInterceptor extends DependencyErrorsInterceptor {
  protected translate(error: unknown): ApiError | undefined {
    return riskDependencyError(error);
  }

  protected deadlineMissed(): ApiError {
    return new ApiError(502, RiskErrorCode.LEDGER_UNAVAILABLE, 'The ledger did not answer in time');
  }
}
