import { REQUEST_TYPES } from './layouts';
import { repayRequest, withSlippage, withdrawCollateralRequest } from './position-requests';

const TOKEN = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';

describe('withSlippage', () => {
  it.each([
    [1_000_0000000n, 50, 1_005_0000000n],
    [1_000n, 0, 1_000n],
    [1n, 50, 2n], // rounded up: never less than asked
    [3n, 10_000, 6n],
  ])('%s + %s bps = %s', (amount, bps, padded) => {
    expect(withSlippage(amount, bps)).toBe(padded);
  });
});

describe('repayRequest', () => {
  it('repays the whole debt, padded, when no amount is asked', () => {
    expect(repayRequest(TOKEN, 1_000n, undefined, 50)).toEqual({
      request: { requestType: REQUEST_TYPES.Repay, address: TOKEN, amount: 1_005n },
      amount: 1_000n,
      sent: 1_005n,
      capped: false,
    });
  });

  it('caps an amount above the debt to the debt, and says so', () => {
    expect(repayRequest(TOKEN, 1_000n, 5_000n, 50)).toMatchObject({ amount: 1_000n, sent: 1_005n, capped: true });
  });

  it('pads a partial amount too (the max cost is amount x (1 + bps))', () => {
    expect(repayRequest(TOKEN, 1_000n, 400n, 100)).toMatchObject({ amount: 400n, sent: 404n, capped: false });
  });

  it('sends what the wallet holds when it holds the amount but not the padding', () => {
    expect(repayRequest(TOKEN, 1_000n, undefined, 50, 1_002n)).toMatchObject({ amount: 1_000n, sent: 1_002n });
    expect(repayRequest(TOKEN, 1_000n, undefined, 50, 999n)).toMatchObject({ sent: 1_005n });
  });
});

describe('withdrawCollateralRequest', () => {
  it('asks for all the collateral, padded, so interest earned until inclusion comes out too', () => {
    expect(withdrawCollateralRequest(TOKEN, 2_000n, undefined, 50)).toMatchObject({
      request: { requestType: REQUEST_TYPES.WithdrawCollateral, address: TOKEN, amount: 2_010n },
      amount: 2_000n,
      capped: false,
    });
  });

  it('withdraws an exact amount as asked, and caps one above the collateral', () => {
    expect(withdrawCollateralRequest(TOKEN, 2_000n, 500n, 50)).toMatchObject({ amount: 500n, sent: 500n });
    expect(withdrawCollateralRequest(TOKEN, 2_000n, 9_000n, 50)).toMatchObject({
      amount: 2_000n,
      sent: 2_010n,
      capped: true,
    });
  });
});
