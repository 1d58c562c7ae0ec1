import type { Positions, Reserve } from '@rp/ledger';
import { decodeCached, encodeCached } from './position-cache';
import { decodeRoundPools, encodeRoundPools } from './round-pools';

const positions: Positions = {
  collateral: new Map([[0, 12_345_678_901_234_567_890n]]),
  liabilities: new Map([
    [1, 5n],
    [3, 0n],
  ]),
  supply: new Map(),
};

describe('cached positions', () => {
  it('round-trip exactly, with the round they are due again', () => {
    const text = encodeCached({ positions, dueRound: 42 });
    expect(text).toBe('42|0:12345678901234567890|1:5,3:0|');
    expect(decodeCached(text)).toEqual({ positions, dueRound: 42 });
  });

  it.each(['', 'x|1:2||', '3|1:2|', '3|a:b||'])('read %p as nothing (read again from the ledger)', (text) => {
    expect(decodeCached(text)).toBeUndefined();
  });
});

describe('round pools', () => {
  it('round-trip reserves with bigints and prices by asset', () => {
    const reserve = {
      asset: 'CXLM',
      scalar: 10_000_000n,
      config: { index: 0, decimals: 7, cFactor: 7_500_000, lFactor: 7_500_000, supplyCap: 1n << 80n, enabled: true },
      data: { dRate: 1_000_000_000_123n, bRate: 1_000_000_000_001n, irMod: 1n, bSupply: 2n, dSupply: 3n },
    } as unknown as Reserve;
    const pools = [
      {
        pool: 'CPOOL',
        reserves: [reserve],
        prices: { decimals: 7, prices: new Map([['CXLM', { price: 3_000_000n, timestamp: 1_700_000_000n }]]) },
        status: 3,
      },
    ];
    expect(decodeRoundPools(encodeRoundPools(pools))).toEqual(pools);
  });
});
