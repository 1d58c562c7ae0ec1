import { riskLevelOfHealthFactor } from '@rp/contracts';
import { buildInvocation, poolSubmitOperation } from '@rp/ledger';
import type { SnapshotPosition } from '../store/agent-store';
import type { BuiltClose } from '../close/built-close';

/** A made-up pool (a valid contract address nobody deployed): the mock never touches a ledger. */
export const MOCK_POOL = 'CA2VR6RBHR7XBRLXEE4WWVQWIMJDKXDPTFHOQ5F7EJADXUS5DV63KOUQ';
export const MOCK_PRICES = { XLM: 0.3 } as const;

const START_HEALTH_FACTOR = 1.6;
const DRIFT_PER_POLL = 0.03;
const COLLATERAL_USD = 3000;

/**
 * `SERVICE_MOCK=true`: the service's risk, build and subscribe answers, played in process. One position in a
 * made-up pool drifts from a health factor of 1.6 toward danger by 0.03 a poll (the collateral's price falling);
 * once the agent has decided to close it, the story starts again. Builds are real, signable transactions of the
 * wallet that are never sent.
 */
export class MockService {
  private healthFactor = START_HEALTH_FACTOR;
  private polls = 0;

  constructor(private readonly wallet: string) {}

  risk(): { positions: SnapshotPosition[]; prices: Record<string, string> } {
    this.polls += 1;
    if (this.polls > 1) this.healthFactor = Math.max(0.5, this.healthFactor - DRIFT_PER_POLL);
    const healthFactor = Math.round(this.healthFactor * 1e4) / 1e4;
    const liabilityValueUsd = Math.round(((COLLATERAL_USD * 0.75) / healthFactor) * 100) / 100;
    return {
      positions: [
        {
          poolAddress: MOCK_POOL,
          healthFactor,
          riskLevel: riskLevelOfHealthFactor(BigInt(Math.round(healthFactor * 1e7))),
          collateralValueUsd: COLLATERAL_USD,
          liabilityValueUsd,
        },
      ],
      prices: { XLM: String(Math.round(MOCK_PRICES.XLM * (healthFactor / START_HEALTH_FACTOR) * 1e7) / 1e7) },
    };
  }

  /** After a close decision the played position is closed; a new one starts drifting. */
  closed(): void {
    this.healthFactor = START_HEALTH_FACTOR;
    this.polls = 0;
  }

  build(sequence: string): BuiltClose {
    const transaction = buildInvocation({
      op: poolSubmitOperation(MOCK_POOL, this.wallet, []),
      source: this.wallet,
      sequence,
      validUntil: new Date(Date.now() + 300_000),
      network: 'ledger:testnet',
    });
    return { unsignedXdr: transaction.toXDR(), route: 'submit', builtBy: 'mock' };
  }

  subscription(): { active: boolean; tier: string; expiresAt: string } {
    return { active: true, tier: 'mock', expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString() };
  }
}
