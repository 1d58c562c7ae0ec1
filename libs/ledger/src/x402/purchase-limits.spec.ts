import { USDC_CONTRACT } from '../network/usdc';
import {
  DEFAULT_MAX_PRICE_USD,
  MAX_AUTHORIZATION_SECONDS,
  type PurchaseLimits,
  chooseOffer,
  purchaseLimits,
  refusalOfOffer,
} from './purchase-limits';

const USDC = USDC_CONTRACT['ledger:testnet'];
const PAY_TO = 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX';
const STRANGER = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';

const limits: PurchaseLimits = purchaseLimits({
  network: 'stellar:testnet',
  maxPriceUsd: '0.50',
  maxSpend30dUsd: '1.50',
  payTo: PAY_TO,
});

/** The spec's price, as the service asks it: every clause holds. */
const honest = {
  scheme: 'exact',
  network: 'stellar:testnet',
  amount: '2026000',
  asset: USDC,
  payTo: PAY_TO,
  maxTimeoutSeconds: 600,
  extra: { areFeesSponsored: true },
};

describe('the purchase limits', () => {
  it('reads decimal USD settings exactly, with the network USDC and the documented defaults', () => {
    expect(limits).toEqual({
      network: 'stellar:testnet',
      asset: USDC,
      maxPrice: 5_000_000n,
      payTo: PAY_TO,
      maxSpend30d: 15_000_000n,
      maxTimeoutSeconds: MAX_AUTHORIZATION_SECONDS,
    });
    const defaults = purchaseLimits({ network: 'stellar:pubnet' });
    expect(defaults.asset).toBe(USDC_CONTRACT['ledger:pubnet']);
    expect(defaults.maxPrice).toBe(5_000_000n);
    expect(DEFAULT_MAX_PRICE_USD).toBe('0.50');
    expect(defaults.payTo).toBeUndefined();
    expect(defaults.maxSpend30d).toBeUndefined();
  });

  it('pays the honest offer, up to the price limit and the spend cap exactly', () => {
    expect(refusalOfOffer(honest, limits, 0n)).toBeUndefined();
    expect(refusalOfOffer({ ...honest, amount: '5000000' }, limits, 0n)).toBeUndefined();
    expect(refusalOfOffer({ ...honest, amount: '5000000' }, limits, 10_000_000n)).toBeUndefined();
    expect(refusalOfOffer(honest, { ...limits, payTo: undefined }, 0n)).toBeUndefined();
    expect(refusalOfOffer(honest, { ...limits, maxSpend30d: undefined }, 10n ** 20n)).toBeUndefined();
  });

  // Each offer breaks exactly one clause; the others hold.
  it.each<[string, Record<string, unknown>, bigint, string, RegExp]>([
    ['a scheme other than exact', { scheme: 'upto' }, 0n, 'wrong_scheme', /scheme upto is not exact/],
    ['another network', { network: 'stellar:pubnet' }, 0n, 'wrong_network', /stellar:pubnet is not stellar:testnet/],
    [
      'a foreign asset',
      { asset: USDC_CONTRACT['ledger:pubnet'] },
      0n,
      'wrong_asset',
      /asset CCW67.* is not SERVICE_PAYMENT_ASSET CBIELTK/,
    ],
    ['a receiver that is not SERVICE_PAY_TO', { payTo: STRANGER }, 0n, 'wrong_pay_to', /pays GDRXE2.*not SERVICE_PAY_TO/],
    [
      'an authorization living longer than an hour',
      { maxTimeoutSeconds: MAX_AUTHORIZATION_SECONDS + 1 },
      0n,
      'authorization_too_long',
      /3601 s, more than 3600 s/,
    ],
    [
      'a price above SERVICE_MAX_PRICE',
      { amount: '5000001' },
      0n,
      'price_above_limit',
      /price \$0.5000001 is above SERVICE_MAX_PRICE \$0.5/,
    ],
    [
      'a price of most of the wallet',
      { amount: '15000000000' },
      0n,
      'price_above_limit',
      /price \$1500 is above/,
    ],
    [
      'a price that passes the 30-day cap after what was spent',
      {},
      13_000_000n,
      'spend_cap_reached',
      /paying \$0.2026 after \$1.3 in the last 30 days would pass SERVICE_MAX_SPEND_30D \$1.5/,
    ],
    ['an amount that is not an integer', { amount: '0.2026' }, 0n, 'malformed_offer', /not an x402 exact/],
    ['a zero amount', { amount: '0' }, 0n, 'malformed_offer', /not an x402 exact/],
    ['a receiver that is not an account', { payTo: USDC }, 0n, 'malformed_offer', /not an x402 exact/],
    ['fees not sponsored', { extra: { areFeesSponsored: false } }, 0n, 'malformed_offer', /not an x402 exact/],
  ])('refuses %s', (_case, change, spent, reason, message) => {
    const refusal = refusalOfOffer({ ...honest, ...change }, limits, spent);
    expect(refusal?.reason).toBe(reason);
    expect(refusal?.message).toMatch(message);
  });

  it('refuses what is not an offer at all', () => {
    for (const offer of [null, 'exact', 42, [], { scheme: 'exact' }]) {
      expect(refusalOfOffer(offer, limits, 0n)?.reason).toBe('malformed_offer');
    }
  });

  it('chooses the first offer the limits allow, and names the first refusal when none is', () => {
    const foreign = { ...honest, asset: USDC_CONTRACT['ledger:pubnet'] };
    expect(chooseOffer([foreign, honest], limits, 0n)).toEqual({ offer: honest });
    expect(chooseOffer([foreign, { ...honest, payTo: STRANGER }], limits, 0n)).toMatchObject({
      refusal: { reason: 'wrong_asset' },
    });
    expect(chooseOffer([], limits, 0n)).toMatchObject({ refusal: { reason: 'no_offer' } });
    expect(chooseOffer(undefined, limits, 0n)).toMatchObject({ refusal: { reason: 'no_offer' } });
  });
});
