import { auctionTriggers } from './auction-triggers';
import { riskOfPositionData } from './position-risk';

const S = 10_000_000n;
// Health factor 2.0: low on its own.
const data = {
  collateralBase: 200n * S,
  collateralRaw: 250n * S,
  liabilityBase: 100n * S,
  liabilityRaw: 95n * S,
  scalar: S,
};

describe('liquidation_auction', () => {
  it('raises a position with an auction against it to critical, whatever its health factor', () => {
    expect(auctionTriggers(true)).toEqual([{ trigger: 'liquidation_auction', minimumLevel: 'critical' }]);
    const risk = riskOfPositionData(data, undefined, auctionTriggers(true));
    expect(risk).toMatchObject({ healthFactor: 2, riskLevel: 'critical', recommendedAction: 'LIQUIDATE' });
    expect(risk.triggers).toEqual(['liquidation_auction']);
  });

  it('raises nothing without an auction', () => {
    expect(auctionTriggers(false)).toEqual([]);
    expect(auctionTriggers(undefined)).toEqual([]);
    expect(riskOfPositionData(data, undefined, auctionTriggers(false))).toMatchObject({
      riskLevel: 'low',
      triggers: [],
    });
  });
});
