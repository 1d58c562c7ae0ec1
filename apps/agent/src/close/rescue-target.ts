import { DEFAULT_RISK_BOUNDS, HEALTH_FACTOR_SCALE, type RiskConfigLevels } from '@rp/contracts';

/**
 * The health factor a rescue brings the wallet to (docs/adr/027-auction-rescue.md): the wallet's own critical bound,
 * as the service's risk answer last gave it (`levels.critical`), else the default 1.10. One instance shared by the
 * service's builds, the agent's own builds and the signing rule, so all three aim at the same target.
 */
export class RescueTarget {
  private current = Number(DEFAULT_RISK_BOUNDS.critical) / Number(HEALTH_FACTOR_SCALE);

  get value(): number {
    return this.current;
  }

  /** 7 decimals, as the signing rule and the planner take it. */
  get scaled(): bigint {
    return BigInt(Math.round(this.current * Number(HEALTH_FACTOR_SCALE)));
  }

  follow(levels: Pick<RiskConfigLevels, 'critical'> | undefined): void {
    if (levels && Number.isFinite(levels.critical) && levels.critical > 1) this.current = levels.critical;
  }
}
