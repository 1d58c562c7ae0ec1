import { loadConfig } from '@rp/platform';
import { SubscriptionConfig } from '../config/subscription.config';
import { baseUnitsToUsd, resolvePaymentSettings, usdToBaseUnits } from './payment-settings';

const RECEIVER = 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX';
const SPONSOR = 'SASMM3FVIB3NS73IMSIMS4TT7AAOC4O6MZJFJKN7BREJN4Y45HZ2CKEU';

describe('prices', () => {
  it.each([
    ['0.2026', 2_026_000n],
    ['1', 10_000_000n],
    ['12.5', 125_000_000n],
    ['0.0000001', 1n],
  ])('%s USD is %s base units, and back', (usd, units) => {
    expect(usdToBaseUnits(usd)).toBe(units);
    expect(baseUnitsToUsd(units)).toBe(usd);
  });
});

describe('payment settings', () => {
  const settings = (env: Record<string, string>) => resolvePaymentSettings(loadConfig(SubscriptionConfig, env));

  it('is not configured without a receiver, a sponsor key, or an RPC on pubnet', () => {
    expect(settings({ X402_FACILITATOR_LEDGER_SECRET_KEY: SPONSOR, CONTRACT_RPC_URL: 'http://rpc' })).toBeUndefined();
    expect(settings({ X402_PAYMENT_ADDRESS_LEDGER: RECEIVER, CONTRACT_RPC_URL: 'http://rpc' })).toBeUndefined();
    expect(
      settings({ X402_PAYMENT_ADDRESS_LEDGER: RECEIVER, X402_FACILITATOR_LEDGER_SECRET_KEY: SPONSOR }),
    ).toBeUndefined();
  });

  it('defaults the asset to the network USDC and testnet to the public testnet RPC', () => {
    const resolved = settings({
      X402_PAYMENT_ADDRESS_LEDGER: RECEIVER,
      X402_FACILITATOR_LEDGER_SECRET_KEY: SPONSOR,
      X402_LEDGER_NETWORK: 'ledger:testnet',
      X402_SUBSCRIPTION_PRICE: '1.5',
    });
    expect(resolved).toMatchObject({
      network: 'ledger:testnet',
      caip2: 'stellar:testnet',
      asset: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
      amount: 15_000_000n,
      priceUsd: '1.5',
      rpcUrl: 'https://soroban-testnet.stellar.org',
    });
    expect(resolved?.sponsor.secret()).toBe(SPONSOR);
  });

  it('prefers the dedicated subscription RPC', () => {
    const resolved = settings({
      X402_PAYMENT_ADDRESS_LEDGER: RECEIVER,
      X402_FACILITATOR_LEDGER_SECRET_KEY: SPONSOR,
      CONTRACT_RPC_URL: 'http://shared.example/rpc',
      SUBSCRIPTION_CONTRACT_RPC_URL: 'http://dedicated.example/rpc',
    });
    expect(resolved).toMatchObject({ network: 'ledger:pubnet', rpcUrl: 'http://dedicated.example/rpc' });
  });
});
