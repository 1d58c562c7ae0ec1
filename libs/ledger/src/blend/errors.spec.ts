import { TOKEN_CONTRACT_ERRORS } from '../token/token-errors';
import { decodeContractError } from '../transactions/contract-errors';
import { BLEND_POOL_CALL_ERRORS, BLEND_POOL_ERROR, BLEND_POOL_ERRORS, blendPoolErrorName } from './errors';

describe('BLEND_POOL_ERRORS', () => {
  it('names the pool errors by code', () => {
    expect(BLEND_POOL_ERRORS[1200]).toBe('BadRequest');
    expect(BLEND_POOL_ERRORS[1205]).toBe('InvalidHf');
    expect(BLEND_POOL_ERRORS[1206]).toBe('InvalidPoolStatus');
    expect(BLEND_POOL_ERRORS[1210]).toBe('InvalidPrice');
    expect(BLEND_POOL_ERRORS[1224]).toBe('MinCollateralNotMet');
    expect(blendPoolErrorName(9999)).toBeUndefined();
  });

  it('covers 1200..1224 without gaps and agrees with the by-name table', () => {
    for (let code = 1200; code <= 1224; code++) expect(BLEND_POOL_ERRORS[code]).toEqual(expect.any(String));
    for (const [name, code] of Object.entries(BLEND_POOL_ERROR)) expect(BLEND_POOL_ERRORS[code]).toBe(name);
    expect(Object.isFrozen(BLEND_POOL_ERRORS)).toBe(true);
  });
});

describe('naming contract errors per contract', () => {
  const POOL_REFUSAL = 'HostError: Error(Contract, #1205)';
  const TOKEN_REFUSAL = 'HostError: Error(Contract, #9)';

  it('importing the library registers nothing: a code has no name until its contract’s names are passed', async () => {
    const library = await import('../index');
    expect(library.BLEND_POOL_CALL_ERRORS).toBeDefined();
    expect(decodeContractError(POOL_REFUSAL)).toEqual({ code: 1205, name: undefined });
  });

  it('names a pool call’s codes: the pool’s own, and the token’s it raises through transfers', () => {
    expect(decodeContractError(POOL_REFUSAL, BLEND_POOL_CALL_ERRORS)).toEqual({ code: 1205, name: 'InvalidHf' });
    expect(decodeContractError(TOKEN_REFUSAL, BLEND_POOL_CALL_ERRORS)).toEqual({ code: 9, name: 'AllowanceError' });
    // A token knows nothing of 1205.
    expect(decodeContractError(POOL_REFUSAL, TOKEN_CONTRACT_ERRORS)).toEqual({ code: 1205, name: undefined });
  });
});
