import { riskLevelOfHealthFactor } from './health-factor';
import {
  COOLDOWN_LEVEL_OF,
  COOLDOWN_LEVELS,
  RISK_LEVEL_OF,
  RISK_LEVELS,
  compareRiskLevels,
  isAtLeast,
  parseRiskLevel,
} from './risk-level';

describe('risk levels', () => {
  it('maps the two vocabularies onto each other in both directions', () => {
    expect(COOLDOWN_LEVEL_OF).toEqual({ low: 'healthy', medium: 'warn', high: 'alert', critical: 'emergency' });
    for (const level of RISK_LEVELS) expect(RISK_LEVEL_OF[COOLDOWN_LEVEL_OF[level]]).toBe(level);
    for (const level of COOLDOWN_LEVELS) expect(COOLDOWN_LEVEL_OF[RISK_LEVEL_OF[level]]).toBe(level);
  });

  it('parses either vocabulary into the alert vocabulary', () => {
    expect(parseRiskLevel('alert')).toBe('high');
    expect(parseRiskLevel(' Emergency ')).toBe('critical');
    expect(parseRiskLevel('medium')).toBe('medium');
    expect(parseRiskLevel('severe')).toBeUndefined();
    expect(parseRiskLevel(3)).toBeUndefined();
  });

  it('orders levels by severity', () => {
    expect(compareRiskLevels('critical', 'high')).toBeGreaterThan(0);
    expect(compareRiskLevels('low', 'medium')).toBeLessThan(0);
    expect(isAtLeast('high', 'high')).toBe(true);
    expect(isAtLeast('medium', 'high')).toBe(false);
  });

  it.each([
    [null, 'low'],
    [20_000_000n, 'low'],
    [15_000_000n, 'low'],
    [14_999_999n, 'medium'],
    [12_500_000n, 'medium'],
    [12_499_999n, 'high'],
    [11_000_000n, 'high'],
    [10_999_999n, 'critical'],
    [0n, 'critical'],
  ] as const)('health factor %s (7 decimals) is %s, lower bounds inclusive', (hf, level) => {
    expect(riskLevelOfHealthFactor(hf)).toBe(level);
  });
});
