import { type SignedAhead, buildInvocation, poolSubmitOperation } from '@rp/ledger';
import { type PresignedClose, PresignedCache, movedBeyondSlippage, sendable, stalenessOf } from './presigned-cache';

const NOW = 1_800_000_000;

function entry(overrides: Partial<PresignedClose> = {}, signed: Partial<SignedAhead> = {}): PresignedClose {
  return {
    poolAddress: 'POOL',
    signed: { sequence: '101', validUntil: NOW + 300, hash: 'h', envelope: 'e', ...signed } as SignedAhead,
    builtBy: 'service',
    builtAt: 0,
    healthFactor: 1.2,
    prices: { XLM: '0.3' },
    ...overrides,
  };
}

const fresh = { accountSequence: '100', healthFactor: 1.2, prices: { XLM: '0.3' }, nowSeconds: NOW, marginSeconds: 60 };

describe('presigned closes', () => {
  it('is fresh while sequence, time bounds, prices and position hold', () => {
    expect(stalenessOf(entry(), fresh)).toBeUndefined();
    expect(stalenessOf(entry(), { ...fresh, healthFactor: 1.2018 })).toBeUndefined(); // within 0.2 %
  });

  it.each([
    ['none', undefined, fresh],
    ['sequence', entry(), { ...fresh, accountSequence: '101' }],
    ['time bounds', entry({}, { validUntil: NOW + 59 }), fresh],
    ['prices', entry(), { ...fresh, prices: { XLM: '0.31' } }],
    ['position', entry(), { ...fresh, healthFactor: 1.19 }],
    ['position', entry(), { ...fresh, healthFactor: null }],
  ])('is stale for %s', (reason, stored, now) => {
    expect(stalenessOf(stored, now)).toBe(reason);
  });

  it('is sendable with the next sequence number and time left', () => {
    expect(sendable(entry(), '100', NOW)).toBe(true);
    expect(sendable(entry(), '101', NOW)).toBe(false);
    expect(sendable(entry({}, { validUntil: NOW + 1 }), '100', NOW)).toBe(false);
    expect(sendable(undefined, '100', NOW)).toBe(false);
  });

  it('is not worth sending once a price moved beyond 80 % of the slippage', () => {
    expect(movedBeyondSlippage({ XLM: '0.30' }, { XLM: '0.29' }, 500)).toBe(false); // 3.3 % of 5 %
    expect(movedBeyondSlippage({ XLM: '0.30' }, { XLM: '0.28' }, 500)).toBe(true); // 6.7 %
    expect(movedBeyondSlippage({ XLM: '0.30' }, { XLM: '0.2975' }, 100)).toBe(true); // 0.83 % of 1 %
    expect(movedBeyondSlippage({ XLM: '0.30' }, {}, 100)).toBe(false);
  });

  it('keeps only the pools still endangered', () => {
    const cache = new PresignedCache();
    cache.set(entry({ poolAddress: 'A' }));
    cache.set(entry({ poolAddress: 'B' }));
    cache.retain(new Set(['B']));
    expect(cache.all().map((e) => e.poolAddress)).toEqual(['B']);
  });

  describe('priced below what the network asks', () => {
    const wallet = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
    const pool = 'CDVQVKOY2YSXS2IC7KN6MNASSHPAO7UN2UR2ON4OI2SKMFJNVAMDX6DP';
    /** An (unsimulated: no resource fee) pool call bidding `inclusion` stroops; the ledger's spec covers resources. */
    const envelope = (inclusion: number) =>
      buildInvocation({
        source: wallet,
        sequence: '100',
        op: poolSubmitOperation(pool, wallet, []),
        fee: inclusion,
        validUntil: NOW + 300,
        network: 'ledger:testnet',
      }).toXDR();
    const priced = (inclusion: number) => entry({}, { envelope: envelope(inclusion) });
    const asking = (ask: bigint, maxTotalFee = 100_000_000n) => ({ ...fresh, networkFee: { ask, maxTotalFee } });

    it('is stale for fee when it bids less than the network asks now', () => {
      expect(stalenessOf(priced(100), asking(1250n))).toBe('fee');
      expect(stalenessOf(priced(1249), asking(1250n))).toBe('fee');
    });

    it('is fresh when it bids the ask or more', () => {
      expect(stalenessOf(priced(1250), asking(1250n))).toBeUndefined();
      expect(stalenessOf(priced(5000), asking(1250n))).toBeUndefined();
    });

    it('is fresh at the cap: bidding more is not allowed (inclusion + resources <= MAX_CLOSE_FEE_STROOPS)', () => {
      expect(stalenessOf(priced(10_000), asking(50_000n, 10_000n))).toBeUndefined();
      expect(stalenessOf(priced(9_999), asking(50_000n, 10_000n))).toBe('fee');
    });

    it('is not priced in mock mode', () => {
      expect(stalenessOf(entry({ builtBy: 'mock' }), asking(1250n))).toBeUndefined();
    });
  });
});
