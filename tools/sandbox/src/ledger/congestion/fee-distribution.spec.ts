import { feeDistribution } from './fee-distribution';

describe('feeDistribution (stellar-rpc computeFeeDistribution)', () => {
  it('takes nearest-rank percentiles of the sorted fees', () => {
    const fees = Array.from({ length: 10 }, (_, i) => BigInt((10 - i) * 100)); // 1000 .. 100, unsorted
    const stats = feeDistribution(fees, 3);
    expect(stats).toMatchObject({ min: '100', max: '1000', p10: '100', p50: '500', p90: '900' });
    // ceil(0.95 * 10) = 10th and ceil(0.99 * 10) = 10th value
    expect([stats.p95, stats.p99]).toEqual(['1000', '1000']);
    expect([stats.transactionCount, stats.ledgerCount]).toEqual(['10', 3]);
  });

  it('reports the longest run as the mode, and the smallest fee when none repeats', () => {
    expect(feeDistribution([100n, 300n, 300n, 200n, 200n, 200n], 1).mode).toBe('200');
    expect(feeDistribution([500n, 300n, 400n], 1).mode).toBe('300');
    expect(feeDistribution([100n, 100n, 900n, 900n, 900n], 1).mode).toBe('900');
  });

  it('rounds the rank up: p10 of 3 fees is the first, p50 the second', () => {
    const stats = feeDistribution([300n, 100n, 200n], 1);
    expect([stats.p10, stats.p40, stats.p50, stats.p70]).toEqual(['100', '200', '200', '300']);
  });

  it('answers all zeros (ledgerCount too) without fees, as the RPC does', () => {
    const stats = feeDistribution([], 7);
    expect(stats).toMatchObject({ max: '0', min: '0', mode: '0', p99: '0', transactionCount: '0', ledgerCount: 0 });
  });
});
