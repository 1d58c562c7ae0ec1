import { MIN_INCLUSION_FEE } from './close-fee';
import { chooseInclusionFee } from './fee-level';

const stats = (p90: string, p95: string, transactionCount = '40') => ({ p90, p95, transactionCount });
const CAP = 1_000_000n;

describe('chooseInclusionFee', () => {
  it('bids the minimum at either level on a quiet network, without calling it congested', () => {
    const quiet = stats('100', '100');
    expect(chooseInclusionFee(quiet, 'normal', CAP)).toEqual({ fee: MIN_INCLUSION_FEE, congested: false });
    // The high level still adds its margin to p95; a quiet ledger charges the minimum whatever the bid.
    expect(chooseInclusionFee(quiet, 'high', CAP)).toEqual({ fee: 125n, congested: false });
  });

  it('bids p90 at the normal level and p95 + 25% at the high level when fees are up, and says congested', () => {
    const storm = stats('1000', '1000');
    expect(chooseInclusionFee(storm, 'normal', CAP)).toEqual({ fee: 1000n, congested: true });
    expect(chooseInclusionFee(storm, 'high', CAP)).toEqual({ fee: 1250n, congested: true });
    expect(chooseInclusionFee(stats('800', '2001'), 'high', CAP).fee).toBe(2502n);
  });

  it('never bids above the cap, nor below the minimum when the cap is lower', () => {
    expect(chooseInclusionFee(stats('5000', '9000'), 'high', 2000n)).toEqual({ fee: 2000n, congested: true });
    expect(chooseInclusionFee(stats('5000', '9000'), 'normal', 2000n).fee).toBe(2000n);
    expect(chooseInclusionFee(stats('5000', '9000'), 'normal', 10n).fee).toBe(MIN_INCLUSION_FEE);
  });

  it('bids the minimum on an empty window, a malformed answer or none, and does not call it congested', () => {
    for (const distribution of [stats('5000', '5000', '0'), stats('-1', 'x'), stats('1e9', '1e9'), undefined]) {
      expect(chooseInclusionFee(distribution, 'normal', CAP)).toEqual({ fee: MIN_INCLUSION_FEE, congested: false });
    }
  });

  it('calls p90 below the minimum quiet (the minimum is bid)', () => {
    expect(chooseInclusionFee(stats('50', '50'), 'normal', CAP)).toEqual({ fee: MIN_INCLUSION_FEE, congested: false });
  });
});
