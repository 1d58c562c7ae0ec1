import { ErrorCode, TxbErrorCode } from '@rp/contracts';
import { LedgerRpcError, NetworkMismatchError } from '@rp/ledger';
import { ApiError } from '@rp/platform';
import type { BuildRefusal } from '../building/build-outcome';
import { LedgerNotConfiguredError } from '../ledger/txb-ledger';
import { StoreUnavailableError } from '../proposals/proposal.repository';
import type { SubmitRefusal } from '../submission/submission-outcome';

/** A refused build as the caller sees it (DECISIONS.md, status mapping). */
export function buildRefusalError(refusal: BuildRefusal): ApiError {
  switch (refusal.code) {
    case 'POOL_NOT_FOUND':
      return new ApiError(404, TxbErrorCode.POOL_NOT_FOUND, `No Blend pool at ${refusal.pool}`);
    case 'NO_POSITION_FOUND':
      return new ApiError(
        404,
        TxbErrorCode.NO_POSITION_FOUND,
        refusal.token
          ? `The wallet has no position in ${refusal.token} in this pool`
          : 'The wallet has no position in this pool',
      );
    case 'ACCOUNT_NOT_FOUND':
      return new ApiError(404, TxbErrorCode.ACCOUNT_NOT_FOUND, `No ledger account ${refusal.wallet}`);
    case 'NO_DEBT_TO_REPAY':
      return new ApiError(
        422,
        TxbErrorCode.NO_DEBT_TO_REPAY,
        refusal.token ? `The wallet has no debt in ${refusal.token}` : 'The wallet has no debt in this pool',
      );
    case 'NO_COLLATERAL_TO_LIQUIDATE':
      return new ApiError(
        422,
        TxbErrorCode.NO_COLLATERAL_TO_LIQUIDATE,
        `The wallet has no collateral in ${refusal.token}`,
      );
    case 'TOO_MANY_OPERATIONS':
      return new ApiError(
        422,
        TxbErrorCode.TOO_MANY_OPERATIONS,
        `The transaction would need ${refusal.operations} operations; at most 10 fit in one`,
        { body: { operations: refusal.operations } },
      );
    case 'SIMULATION_FAILED': {
      const named = refusal.contractError
        ? ` (${refusal.contractError.name ?? 'contract error'} ${refusal.contractError.code})`
        : '';
      return new ApiError(
        422,
        TxbErrorCode.SIMULATION_FAILED,
        `The ledger refused the transaction in simulation${named}`,
        {
          body: { ...(refusal.contractError && { contractError: refusal.contractError }), reason: refusal.detail },
        },
      );
    }
    case 'TARGET_ALREADY_REACHED':
      return new ApiError(
        422,
        TxbErrorCode.TARGET_ALREADY_REACHED,
        `The health factor is already ${refusal.healthFactor}, at or above the target`,
      );
    case 'UNWIND_NOT_POSSIBLE':
      return new ApiError(422, TxbErrorCode.UNWIND_NOT_POSSIBLE, `The position cannot be unwound: ${refusal.detail}`);
    case 'RESCUE_NOT_POSSIBLE':
      return new ApiError(422, TxbErrorCode.RESCUE_NOT_POSSIBLE, `The position cannot be rescued: ${refusal.detail}`);
    case 'AUCTION_NOT_FOUND':
      return new ApiError(
        404,
        TxbErrorCode.AUCTION_NOT_FOUND,
        `No liquidation auction runs against ${refusal.wallet} in ${refusal.pool}: nothing to rescue`,
      );
    case 'PRICE_UNAVAILABLE':
      return new ApiError(
        422,
        TxbErrorCode.PRICE_UNAVAILABLE,
        `The pool's oracle has no usable price for ${refusal.asset}`,
      );
    case 'RECEIVER_NOT_CONFIGURED':
      return new ApiError(
        503,
        TxbErrorCode.NOT_CONFIGURED,
        'This unwind needs a flash loan and TXB_UNWIND_RECEIVER is not set',
      );
  }
}

/** A refused submission as the caller sees it. */
export function submitRefusalError(refusal: SubmitRefusal): ApiError {
  switch (refusal.code) {
    case 'RPC_URL_NOT_ALLOWED':
      return new ApiError(
        400,
        TxbErrorCode.RPC_URL_NOT_ALLOWED,
        'rpcUrl is not one of the RPCs this service submits to',
        {
          details: [{ field: 'rpcUrl', message: 'is not on the allowed list (TXB_ALLOWED_RPC_URLS)' }],
        },
      );
    case 'MALFORMED_ENVELOPE':
      return new ApiError(400, ErrorCode.VALIDATION_FAILED, `transactionXdr ${refusal.message}`, {
        details: [{ field: 'transactionXdr', message: refusal.message }],
      });
    case 'PROPOSAL_NOT_FOUND':
      return new ApiError(404, TxbErrorCode.PROPOSAL_NOT_FOUND, 'No proposal of yours has this transaction');
    case 'PROPOSAL_EXPIRED':
      return new ApiError(410, TxbErrorCode.PROPOSAL_EXPIRED, `Proposal ${refusal.id} expired at ${refusal.expiresAt}`);
    case 'TRANSACTION_UNSIGNED':
      return new ApiError(400, TxbErrorCode.TRANSACTION_UNSIGNED, 'The transaction carries no signature', {
        details: [{ field: 'transactionXdr', message: 'must be signed by the wallet' }],
      });
    case 'WRONG_NETWORK':
      return new ApiError(
        400,
        TxbErrorCode.WRONG_NETWORK,
        `The transaction was signed for another network; this service submits on "${refusal.passphrase}"`,
        { details: [{ field: 'transactionXdr', message: 'is signed for another network' }] },
      );
    case 'SUBMISSION_FAILED': {
      const contract = refusal.failure.contractError;
      const named = contract ? `, ${contract.name ?? 'contract error'} ${contract.code}` : '';
      return new ApiError(
        422,
        TxbErrorCode.SUBMISSION_FAILED,
        `The network refused the transaction: ${refusal.failure.resultCode}${named}`,
        {
          body: {
            txHash: refusal.txHash,
            resultCode: refusal.failure.resultCode,
            ...(contract && { contractError: contract }),
          },
        },
      );
    }
    case 'LEDGER_BUSY':
      return new ApiError(
        503,
        TxbErrorCode.LEDGER_BUSY,
        'The network asked to try again later; the signed transaction is kept and resent, follow it in the proposals',
        { headers: { 'Retry-After': '5' }, body: { txHash: refusal.txHash } },
      );
    case 'LEDGER_UNAVAILABLE':
      return new ApiError(
        502,
        TxbErrorCode.LEDGER_UNAVAILABLE,
        'The ledger RPC did not answer; the signed transaction is kept and followed, see the proposals',
        { body: { txHash: refusal.txHash } },
      );
  }
}

/** Failures of what txb depends on, whatever the input: the ledger RPC, its configuration, Redis. */
export function dependencyError(error: unknown): ApiError | undefined {
  if (error instanceof LedgerRpcError || error instanceof NetworkMismatchError) {
    return new ApiError(502, TxbErrorCode.LEDGER_UNAVAILABLE, 'The ledger RPC failed or did not answer', {
      cause: error,
    });
  }
  if (error instanceof LedgerNotConfiguredError) {
    return new ApiError(503, TxbErrorCode.NOT_CONFIGURED, 'The transaction builder has no ledger RPC configured');
  }
  if (error instanceof StoreUnavailableError) {
    return new ApiError(503, TxbErrorCode.STORE_UNAVAILABLE, 'Proposals cannot be read or stored right now', {
      headers: { 'Retry-After': '2' },
    });
  }
  return undefined;
}
