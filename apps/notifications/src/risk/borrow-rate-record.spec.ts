import { BorrowRateRecord, type BorrowRateHistory, lastRoundBefore } from './borrow-rate-record';

const POOL = 'CPOOL';
const rates = (usdc: bigint) => new Map([[POOL, new Map([['CUSDC', usdc]])]]);
const history: BorrowRateHistory = { ledger: 10, rates: rates(900n), previous: { ledger: 9, rates: rates(600n) } };

describe('lastRoundBefore', () => {
  it('is the recorded round when the ledger asked is newer', () => {
    expect(lastRoundBefore(history, 11)).toEqual({ ledger: 10, rates: rates(900n) });
  });

  it('is the round before it when the monitor already evaluated the ledger asked (compare as it did)', () => {
    expect(lastRoundBefore(history, 10)).toEqual({ ledger: 9, rates: rates(600n) });
  });

  it('is none without a record, or when no recorded round is older (a network reset)', () => {
    expect(lastRoundBefore(undefined, 10)).toBeUndefined();
    expect(lastRoundBefore(history, 9)).toBeUndefined();
    expect(lastRoundBefore({ ledger: 10, rates: rates(1n) }, 10)).toBeUndefined();
  });
});

describe('BorrowRateRecord', () => {
  it('keeps the new round and the last one before it, bigints as strings, for ten minutes', () => {
    const record = new BorrowRateRecord(undefined, 'p:');
    const [key, value, px, ttl] = record.next(history, { ledger: 11, rates: rates(1_500n) });
    expect([key, px, ttl]).toEqual(['p:rms:borrow-rates', 'PX', 600_000]);
    expect(JSON.parse(value)).toEqual({
      ledger: 11,
      rates: { [POOL]: { CUSDC: '1500' } },
      previous: { ledger: 10, rates: { [POOL]: { CUSDC: '900' } } },
    });
    // The same ledger run again (a scheduler that took over) keeps comparing with the round before it.
    expect(JSON.parse(record.next(history, { ledger: 10, rates: rates(900n) })[1]).previous.ledger).toBe(9);
  });

  it('reads nothing without Redis', async () => {
    await expect(new BorrowRateRecord(undefined, 'p:').read()).resolves.toBeUndefined();
  });
});
