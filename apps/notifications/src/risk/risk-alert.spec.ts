import type { PositionRisk } from '@rp/ledger';
import { riskAlert, type EvaluatedPosition } from './risk-alert';

const risk = (riskLevel: PositionRisk['riskLevel'], healthFactor: number | null): PositionRisk => ({
  healthFactorScaled: healthFactor === null ? null : BigInt(Math.round(healthFactor * 1e7)),
  healthFactor,
  riskLevel,
  triggers: riskLevel === 'low' ? [] : ['low_health_factor'],
  collateralValueUsd: 2700,
  liabilityValueUsd: 1900,
  recommendedAction: riskLevel === 'critical' ? 'LIQUIDATE' : 'REPAY',
});

const position = (level: PositionRisk['riskLevel'], healthFactor: number | null = 1.05): EvaluatedPosition => ({
  wallet: 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6',
  pool: 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA',
  risk: risk(level, healthFactor),
});

describe('riskAlert', () => {
  const at = '2026-11-22T20:00:00.000Z';

  it('gives the monitor one id per wallet, pool, round and level, so a batch job run twice raises the same alert', () => {
    const first = riskAlert(position('critical'), at, 41)?.alertId;
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(riskAlert(position('critical', 1.04), at, 41)?.alertId).toBe(first);
    expect(riskAlert(position('high', 1.2), at, 41)?.alertId).not.toBe(first);
  });

  it('gives another round another id, even on a ledger number a reset network has seen before', () => {
    expect(riskAlert(position('critical'), at, 42)?.alertId).not.toBe(riskAlert(position('critical'), at, 41)?.alertId);
  });

  it('gives other sources a fresh id each time, and raises nothing without debt', () => {
    expect(riskAlert(position('critical'), at)?.alertId).not.toBe(riskAlert(position('critical'), at)?.alertId);
    expect(riskAlert(position('low', null), at, 41)).toBeUndefined();
  });
});
