import { DAY_TIER, HOUR_TIER, HealthRollup, ROUND_TIER, tierFor } from './health-tiers';

const at = (iso: string) => new Date(`2026-11-20T${iso}Z`);
const point = (
  time: string,
  healthFactor: number | null,
  riskLevel: 'low' | 'medium' | 'high',
  triggers: string[],
) => ({
  walletAddress: 'G1',
  poolAddress: 'C1',
  at: at(time),
  healthFactor,
  riskLevel,
  triggers,
});

describe('health tiers', () => {
  it('rolls a bucket up to its worst: lowest health factor, worst level, every trigger once', () => {
    const rollup = new HealthRollup(HOUR_TIER)
      .add([point('10:05:00', null, 'low', []), point('10:20:00', 1.3, 'high', ['pool_on_ice'])])
      .add([point('10:40:00', 1.2, 'medium', ['low_health_factor', 'pool_on_ice']), point('11:00:00', 1.9, 'low', [])]);
    expect(rollup.result()).toEqual([
      {
        id: `${at('10:00:00').toISOString()}:G1:C1`,
        walletAddress: 'G1',
        poolAddress: 'C1',
        at: at('10:00:00'),
        healthFactor: 1.2,
        riskLevel: 'high',
        triggers: ['pool_on_ice', 'low_health_factor'],
        expiresAt: new Date(at('10:00:00').getTime() + 30 * 86_400_000),
      },
      expect.objectContaining({ at: at('11:00:00'), healthFactor: 1.9, riskLevel: 'low', triggers: [] }),
    ]);
    expect(new HealthRollup(DAY_TIER).add([point('10:05:00', null, 'low', [])]).result()[0].healthFactor).toBeNull();
  });

  it('answers a range at the finest tier that still holds it and keeps the series short', () => {
    const now = at('12:00:00');
    const hoursBefore = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
    expect(tierFor(hoursBefore(2), now, now)).toBe(ROUND_TIER);
    expect(tierFor(hoursBefore(3), now, now)).toBe(HOUR_TIER);
    expect(tierFor(hoursBefore(25), hoursBefore(24.5), now)).toBe(HOUR_TIER);
    expect(tierFor(hoursBefore(31 * 24), now, now)).toBe(DAY_TIER);
    expect(tierFor(hoursBefore(40 * 24), hoursBefore(39 * 24), now)).toBe(DAY_TIER);
  });
});
