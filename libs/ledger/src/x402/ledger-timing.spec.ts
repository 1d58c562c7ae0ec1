import type { LedgerRpc } from '../rpc/ledger-rpc';
import { FALLBACK_LEDGER_SECONDS, LedgerTiming, averageCloseSeconds, expirationWindow } from './ledger-timing';

describe('the expiration window of an exact payment', () => {
  it.each([
    [4, 150],
    [5, 120],
    [6, 100],
    [7, 86],
  ])('at %i s per ledger, a payer signs current + %i and the server accepts 2 more', (seconds, ledgers) => {
    expect(expirationWindow(1000, seconds, 600)).toEqual({
      currentLedger: 1000,
      closeSeconds: seconds,
      expirationLedger: 1000 + ledgers,
      maxLedger: 1000 + ledgers + 2,
    });
  });

  it('accepts what a payer signed when its estimate was on the other side of a whole second', () => {
    // The payer measured 6.0 s (signs current + 100); the server measures 6.05 s a moment later.
    const payer = expirationWindow(1000, 6, 600);
    const server = expirationWindow(1001, 6.05, 600);
    expect(server.closeSeconds).toBe(7);
    expect(payer.expirationLedger).toBeLessThanOrEqual(server.maxLedger);
  });

  it('never divides by less than one second (a sandbox closing four ledgers a second)', () => {
    expect(expirationWindow(10, 0.25, 600)).toMatchObject({ closeSeconds: 1, expirationLedger: 610, maxLedger: 612 });
  });
});

describe('averageCloseSeconds', () => {
  it('averages the intervals between the oldest and newest close times, in any order', () => {
    expect(averageCloseSeconds([130, 100, 112, 124, 106, 118])).toBe(6);
    expect(averageCloseSeconds([100, 106, 113])).toBe(6.5);
  });

  it('falls back to the reference libraries’ 5 s without two ledgers', () => {
    expect(averageCloseSeconds([])).toBe(FALLBACK_LEDGER_SECONDS);
    expect(averageCloseSeconds([100])).toBe(FALLBACK_LEDGER_SECONDS);
  });

  it('counts ledgers closed within one second as a second together (their close times are whole seconds)', () => {
    expect(averageCloseSeconds([100, 100, 100])).toBe(0.5);
    expect(expirationWindow(1, averageCloseSeconds([100, 100]), 600).closeSeconds).toBe(1);
  });
});

describe('LedgerTiming', () => {
  function rpcWith(closeTimes: number[], calls: string[]): LedgerRpc {
    return {
      getLatestLedger: async () => {
        calls.push('getLatestLedger');
        return { sequence: 500 };
      },
      getLedgers: async (request: { startLedger: number }) => {
        calls.push(`getLedgers:${request.startLedger}`);
        return { ledgers: closeTimes.map((time) => ({ ledgerCloseTime: String(time) })) };
      },
    } as unknown as LedgerRpc;
  }

  it('measures the last 20 ledgers once and reuses the estimate for the cache period', async () => {
    const calls: string[] = [];
    let now = 0;
    const timing = new LedgerTiming(
      rpcWith(
        Array.from({ length: 20 }, (_, i) => 1000 + 6 * i),
        calls,
      ),
      { cacheMs: 60_000, now: () => now },
    );
    expect(await timing.window(600)).toMatchObject({ currentLedger: 500, expirationLedger: 600, maxLedger: 602 });
    await timing.window(600);
    expect(calls.filter((call) => call.startsWith('getLedgers'))).toEqual(['getLedgers:481']);
    now = 60_001;
    await timing.window(600);
    expect(calls.filter((call) => call.startsWith('getLedgers'))).toHaveLength(2);
  });

  it('uses 5 s when the RPC cannot list ledgers', async () => {
    const failing = {
      getLatestLedger: async () => ({ sequence: 7 }),
      getLedgers: async () => {
        throw new Error('method not found');
      },
    } as unknown as LedgerRpc;
    expect(await new LedgerTiming(failing).window(600)).toMatchObject({ closeSeconds: 5, expirationLedger: 127 });
  });
});
