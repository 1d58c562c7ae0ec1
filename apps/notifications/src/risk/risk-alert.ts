import { createHash, randomUUID } from 'node:crypto';
import type { RiskAlert, RiskPositionView } from '@rp/contracts';
import type { PositionRisk } from '@rp/ledger';

/** A wallet's position in one pool with its risk, as evaluated at one ledger. */
export interface EvaluatedPosition {
  readonly wallet: string;
  readonly pool: string;
  readonly risk: PositionRisk;
}

/** The route's view of a position: the spec's Alert fields without `alertId`. */
export function positionView(position: EvaluatedPosition, evaluatedAt: string): RiskPositionView {
  const { risk } = position;
  return {
    address: position.wallet,
    poolAddress: position.pool,
    riskLevel: risk.riskLevel,
    healthFactor: risk.healthFactor,
    triggers: [...risk.triggers],
    collateralValueUsd: risk.collateralValueUsd,
    liabilityValueUsd: risk.liabilityValueUsd,
    recommendedAction: risk.recommendedAction,
    evaluatedAt,
  };
}

/**
 * The alert of a position with debt (a position without debt has no health factor and raises none). The monitor's
 * id is the same for the same wallet, pool, round and level, so a batch job run twice raises the same alert and
 * its deliveries keep their job ids; other sources get a fresh id. Rounds are numbered by a Redis counter that
 * lives as long as the queues and idempotency keys it guards, where a ledger number would repeat after a network
 * reset (a restarted sandbox, a wiped test network) and match deliveries of the network before.
 */
export function riskAlert(position: EvaluatedPosition, evaluatedAt: string, round?: number): RiskAlert | undefined {
  const view = positionView(position, evaluatedAt);
  if (view.healthFactor === null) return undefined;
  const alertId =
    round === undefined
      ? randomUUID()
      : uuidOf(`monitor:${position.wallet}:${position.pool}:round-${round}:${view.riskLevel}`);
  return { alertId, ...view, healthFactor: view.healthFactor };
}

/** A UUID-shaped id derived from `seed` (sha256, version nibble 5-like, stable). */
function uuidOf(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
