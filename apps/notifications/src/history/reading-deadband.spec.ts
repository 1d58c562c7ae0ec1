import { READING_HEARTBEAT_MS, ReadingDeadband } from './reading-deadband';

const reading = (healthFactor: number | null, triggers: string[] = [], riskLevel: 'low' | 'high' = 'low') => ({
  walletAddress: 'G1',
  poolAddress: 'C1',
  healthFactor,
  riskLevel,
  triggers,
});

describe('ReadingDeadband', () => {
  it('keeps a reading that changed (health factor to 4 decimals, level, triggers) and a heartbeat', () => {
    const band = new ReadingDeadband();
    const t0 = new Date('2026-11-26T10:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    expect(band.keep(reading(1.5), t0)).toBe(true);
    expect(band.keep(reading(1.50001), at(5000))).toBe(false);
    expect(band.keep(reading(1.5001), at(10_000))).toBe(true);
    expect(band.keep(reading(1.5001, [], 'high'), at(15_000))).toBe(true);
    expect(band.keep(reading(1.5001, ['pool_on_ice'], 'high'), at(20_000))).toBe(true);
    expect(band.keep(reading(1.5001, ['pool_on_ice'], 'high'), at(25_000))).toBe(false);
    expect(band.keep(reading(1.5001, ['pool_on_ice'], 'high'), at(20_000 + READING_HEARTBEAT_MS))).toBe(true);
    expect(band.keep({ ...reading(1.5001, ['pool_on_ice'], 'high'), poolAddress: 'C2' }, at(30_000))).toBe(true);
    expect(band.keep(reading(null), at(35_000))).toBe(true);
  });
});
