import { ConfigError, describeConfig, loadConfig } from '@rp/platform';
import { Keypair } from '@stellar/stellar-sdk';
import { SubscriptionConfig } from './subscription.config';

describe('subscription settings', () => {
  it('has the defaults of the spec: $0.2026 for 30 days on pubnet, on port 3001', () => {
    const config = loadConfig(SubscriptionConfig, {});
    expect(config).toMatchObject({
      PORT: 3001,
      X402_SUBSCRIPTION_PRICE: '0.2026',
      X402_SUBSCRIPTION_DAYS: 30,
      X402_LEDGER_NETWORK: 'ledger:pubnet',
    });
    expect(config.X402_PAYMENT_ADDRESS_LEDGER).toBeUndefined();
    expect(config.X402_FACILITATOR_LEDGER_SECRET_KEY).toBeUndefined();
  });

  it('accepts a receiving address and a sponsor key, and never prints the key', () => {
    const sponsor = Keypair.random();
    const config = loadConfig(SubscriptionConfig, {
      X402_PAYMENT_ADDRESS_LEDGER: Keypair.random().publicKey(),
      X402_FACILITATOR_LEDGER_SECRET_KEY: sponsor.secret(),
      X402_LEDGER_NETWORK: 'ledger:testnet',
    });
    expect(JSON.stringify(describeConfig(config))).not.toContain(sponsor.secret());
  });

  it.each([
    [{ X402_PAYMENT_ADDRESS_LEDGER: 'GNOTANADDRESS' }, 'X402_PAYMENT_ADDRESS_LEDGER must be a valid ledger G-address'],
    [{ X402_SUBSCRIPTION_PRICE: '0.20260001' }, 'X402_SUBSCRIPTION_PRICE must be a USD amount with at most 7 decimals'],
    [{ X402_SUBSCRIPTION_PRICE: '-1' }, 'X402_SUBSCRIPTION_PRICE must be a USD amount'],
    [{ X402_SUBSCRIPTION_DAYS: '0' }, 'X402_SUBSCRIPTION_DAYS must be an integer between 1 and 3650'],
    [{ X402_LEDGER_NETWORK: 'stellar:pubnet' }, 'X402_LEDGER_NETWORK must be one of ledger:pubnet, ledger:testnet'],
    [{ CONTRACT_RPC_URL: 'soroban-rpc' }, 'CONTRACT_RPC_URL must be an http:// or https:// URL'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(SubscriptionConfig, env)).toThrow(message);
  });

  it('refuses a malformed sponsor key without showing it', () => {
    const secret = Keypair.random().secret();
    // Another last character breaks the checksum (replacing an `A` with `A` would leave the key valid).
    const broken = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    let error: unknown;
    try {
      loadConfig(SubscriptionConfig, { X402_FACILITATOR_LEDGER_SECRET_KEY: broken });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('X402_FACILITATOR_LEDGER_SECRET_KEY must be a valid ledger secret seed');
    expect((error as Error).message).not.toContain(broken);
  });
});
