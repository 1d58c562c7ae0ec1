import { BLEND_POOL_ERROR, BLEND_POOL_ERRORS, blendPoolErrorName } from './errors';

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
