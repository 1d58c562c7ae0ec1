import { LedgerRpcError } from '@rp/ledger';
import { ApiError } from '@rp/platform';
import type { BuildRefusal } from '../building/build-outcome';
import { LedgerNotConfiguredError } from '../ledger/txb-ledger';
import { StoreUnavailableError } from '../proposals/proposal.repository';
import type { SubmitRefusal } from '../submission/submission-outcome';
import { buildRefusalError, dependencyError, submitRefusalError } from './txb-http-errors';

const answer = (error: ApiError) => ({ status: error.getStatus(), code: error.code });

describe('txb errors as the caller sees them (DECISIONS.md status mapping)', () => {
  it.each<[BuildRefusal, number, string]>([
    [{ code: 'POOL_NOT_FOUND', pool: 'C' }, 404, 'POOL_NOT_FOUND'],
    [{ code: 'NO_POSITION_FOUND', pool: 'C' }, 404, 'NO_POSITION_FOUND'],
    [{ code: 'ACCOUNT_NOT_FOUND', wallet: 'G' }, 404, 'ACCOUNT_NOT_FOUND'],
    [{ code: 'NO_DEBT_TO_REPAY', token: 'C' }, 422, 'NO_DEBT_TO_REPAY'],
    [{ code: 'NO_COLLATERAL_TO_LIQUIDATE', token: 'C' }, 422, 'NO_COLLATERAL_TO_LIQUIDATE'],
    [{ code: 'TOO_MANY_OPERATIONS', operations: 11 }, 422, 'TOO_MANY_OPERATIONS'],
    [
      { code: 'SIMULATION_FAILED', detail: 'x', contractError: { code: 1205, name: 'InvalidHf' } },
      422,
      'SIMULATION_FAILED',
    ],
    [{ code: 'TARGET_ALREADY_REACHED', healthFactor: 2 }, 422, 'TARGET_ALREADY_REACHED'],
    [{ code: 'UNWIND_NOT_POSSIBLE', detail: 'x' }, 422, 'UNWIND_NOT_POSSIBLE'],
    [{ code: 'PRICE_UNAVAILABLE', asset: 'C' }, 422, 'PRICE_UNAVAILABLE'],
    [{ code: 'RECEIVER_NOT_CONFIGURED' }, 503, 'NOT_CONFIGURED'],
  ])('build refusal %j is %s %s', (refusal, status, code) => {
    expect(answer(buildRefusalError(refusal))).toEqual({ status, code });
  });

  it('names the contract error of a failed simulation', () => {
    const error = buildRefusalError({
      code: 'SIMULATION_FAILED',
      detail: 'x',
      contractError: { code: 1205, name: 'InvalidHf' },
    });
    expect(error.message).toContain('InvalidHf 1205');
    expect(error.body).toMatchObject({ contractError: { code: 1205, name: 'InvalidHf' } });
  });

  it.each<[SubmitRefusal, number, string]>([
    [{ code: 'RPC_URL_NOT_ALLOWED' }, 400, 'RPC_URL_NOT_ALLOWED'],
    [{ code: 'MALFORMED_ENVELOPE', message: 'm' }, 400, 'VALIDATION_FAILED'],
    [{ code: 'TRANSACTION_UNSIGNED' }, 400, 'TRANSACTION_UNSIGNED'],
    [{ code: 'WRONG_NETWORK', passphrase: 'p' }, 400, 'WRONG_NETWORK'],
    [{ code: 'PROPOSAL_NOT_FOUND' }, 404, 'PROPOSAL_NOT_FOUND'],
    [{ code: 'PROPOSAL_EXPIRED', id: 'txp', expiresAt: 'then' }, 410, 'PROPOSAL_EXPIRED'],
    [{ code: 'SUBMISSION_FAILED', txHash: 'h', failure: { resultCode: 'txBadSeq' } }, 422, 'SUBMISSION_FAILED'],
    [{ code: 'LEDGER_BUSY', txHash: 'h' }, 503, 'LEDGER_BUSY'],
    [{ code: 'LEDGER_UNAVAILABLE', txHash: 'h' }, 502, 'LEDGER_UNAVAILABLE'],
  ])('submit refusal %j is %s %s', (refusal, status, code) => {
    expect(answer(submitRefusalError(refusal))).toEqual({ status, code });
  });

  it('names the field of an input refusal and the result code of a network refusal', () => {
    expect(submitRefusalError({ code: 'RPC_URL_NOT_ALLOWED' }).details).toEqual([
      { field: 'rpcUrl', message: 'is not on the allowed list (TXB_ALLOWED_RPC_URLS)' },
    ]);
    const refused = submitRefusalError({ code: 'SUBMISSION_FAILED', txHash: 'h', failure: { resultCode: 'txBadSeq' } });
    expect(refused.message).toContain('txBadSeq');
    expect(refused.body).toMatchObject({ resultCode: 'txBadSeq', txHash: 'h' });
  });

  it('turns dependency failures into 502 and 503, and leaves anything else alone', () => {
    const rpc = new LedgerRpcError(
      { kind: 'timeout', retryable: true, failover: true, detail: 'x' },
      'getHealth',
      'http://rpc',
      2,
    );
    expect(answer(dependencyError(rpc) as ApiError)).toEqual({ status: 502, code: 'LEDGER_UNAVAILABLE' });
    expect(answer(dependencyError(new LedgerNotConfiguredError()) as ApiError)).toEqual({
      status: 503,
      code: 'NOT_CONFIGURED',
    });
    expect(answer(dependencyError(new StoreUnavailableError('slow')) as ApiError)).toEqual({
      status: 503,
      code: 'STORE_UNAVAILABLE',
    });
    expect(dependencyError(new Error('bug'))).toBeUndefined();
  });
});
