import { plainToInstance } from 'class-transformer';
import { type ValidationError, validateSync } from 'class-validator';
import { DEFAULT_RISK_BOUNDS, riskLevelOfHealthFactor } from './health-factor';
import { PutRiskConfigRequest, RISK_CONFIG_DEFAULTS, boundsOfRiskConfig, effectiveRiskConfig } from './risk-config';

/** Dotted field of every failed rule, one per rule. */
function failures(body: unknown): string[] {
  const errors = validateSync(plainToInstance(PutRiskConfigRequest, body) as object, {
    whitelist: true,
    forbidNonWhitelisted: true,
  });
  const walk = (list: ValidationError[], parent: string): string[] =>
    list.flatMap((e) => {
      const field = parent ? `${parent}.${e.property}` : e.property;
      return [...Object.keys(e.constraints ?? {}).map(() => field), ...walk(e.children ?? [], field)];
    });
  return walk(errors, '');
}

describe('risk configuration', () => {
  it('accepts an empty body, a full one and any subset that keeps the bounds in order', () => {
    expect(failures({})).toEqual([]);
    expect(
      failures({
        levels: { medium: 2, high: 1.6, critical: 1.3 },
        oracleMaxAgeSeconds: 60,
        utilizationWarnBps: 7000,
        utilizationAlertBps: 9500,
        depegBps: 50,
      }),
    ).toEqual([]);
    expect(failures({ levels: { critical: 1.2 } })).toEqual([]);
    expect(failures({ utilizationAlertBps: 8500 })).toEqual([]);
  });

  it.each([
    [{ levels: { critical: 1.0 } }, ['levels.critical']],
    [{ levels: { critical: 0.9 } }, ['levels.critical']],
    [{ levels: { critical: 1.3 } }, ['levels.critical']],
    [{ levels: { medium: 1.2 } }, ['levels.medium']],
    [{ levels: { medium: 1.2, high: 1.3 } }, ['levels.medium', 'levels.high']],
    [{ levels: { high: '1.2' } }, ['levels.high']],
    [{ levels: { medium: 101 } }, ['levels.medium']],
    [{ levels: 'low' }, ['levels']],
    [{ oracleMaxAgeSeconds: 0 }, ['oracleMaxAgeSeconds']],
    [{ oracleMaxAgeSeconds: 1.5 }, ['oracleMaxAgeSeconds']],
    [{ utilizationWarnBps: 9500 }, ['utilizationWarnBps']],
    [{ utilizationAlertBps: 10_001 }, ['utilizationAlertBps']],
    [{ depegBps: -1, oracleMaxAgeSeconds: null }, ['oracleMaxAgeSeconds', 'depegBps']],
    [{ levels: { low: 2 } }, ['levels.low']],
  ])('refuses %j with one entry per bad value', (body, fields) => {
    expect(failures(body)).toEqual(fields);
  });

  it('fills unset fields with the defaults and names them', () => {
    const { config, defaults } = effectiveRiskConfig({ levels: { critical: 1.2 }, depegBps: 100 });
    expect(config).toEqual({
      ...RISK_CONFIG_DEFAULTS,
      levels: { medium: 1.5, high: 1.25, critical: 1.2 },
      depegBps: 100,
    });
    expect(defaults).toEqual([
      'levels.medium',
      'levels.high',
      'oracleMaxAgeSeconds',
      'utilizationWarnBps',
      'utilizationAlertBps',
    ]);
    expect(boundsOfRiskConfig(effectiveRiskConfig(undefined).config)).toEqual(DEFAULT_RISK_BOUNDS);
  });

  it('maps health factors to levels with custom bounds, lower bounds inclusive', () => {
    const bounds = boundsOfRiskConfig(effectiveRiskConfig({ levels: { medium: 2, high: 1.8, critical: 1.4 } }).config);
    expect(bounds).toMatchObject({ medium: 20_000_000n, high: 18_000_000n, critical: 14_000_000n });
    expect(riskLevelOfHealthFactor(20_000_000n, bounds)).toBe('low');
    expect(riskLevelOfHealthFactor(19_999_999n, bounds)).toBe('medium');
    expect(riskLevelOfHealthFactor(18_000_000n, bounds)).toBe('medium');
    expect(riskLevelOfHealthFactor(17_999_999n, bounds)).toBe('high');
    expect(riskLevelOfHealthFactor(14_000_000n, bounds)).toBe('high');
    expect(riskLevelOfHealthFactor(13_999_999n, bounds)).toBe('critical');
    expect(riskLevelOfHealthFactor(null, bounds)).toBe('low');
    // 1.45 is medium by default and critical here.
    expect(riskLevelOfHealthFactor(14_500_000n)).toBe('medium');
    expect(riskLevelOfHealthFactor(13_500_000n, bounds)).toBe('critical');
  });
});
