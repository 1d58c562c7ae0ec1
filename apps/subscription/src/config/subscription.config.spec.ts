import { ConfigError, describeConfig, loadConfig, settingNamesOf } from '@rp/platform';
import { SubscriptionConfig } from './subscription.config';

// Keys made once for these tests (never funded anywhere): apps reach the ledger SDK only through @rp/ledger.
const RECEIVER = 'GB4CB6E564K3YRAGEC3C4BUEJ2EXXDFHG67SPTTMQUED7VUMKJDTWUPX';
const SPONSOR_SECRET = 'SBRL2SPDDUTAVJX43BSOQVIELNA6B6OUHW75UXDZDVX7ESAKBTH57ADO';
const OTHER_SECRET = 'SBV6FMAWA5SGTHTU473WITZDISQLR2WJMWTJSRRYSAO4RHXCTF3ULIZV';

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

  it('declares no Redis setting (subscription uses none) and requires INTERNAL_TOKEN in production', () => {
    expect(settingNamesOf(SubscriptionConfig).filter((name) => name.startsWith('REDIS_'))).toEqual([]);
    expect(() => loadConfig(SubscriptionConfig, { NODE_ENV: 'production' })).toThrow(
      'INTERNAL_TOKEN is required when NODE_ENV is production',
    );
  });

  it('accepts a receiving address and a sponsor key, and never prints the key', () => {
    const config = loadConfig(SubscriptionConfig, {
      X402_PAYMENT_ADDRESS_LEDGER: RECEIVER,
      X402_FACILITATOR_LEDGER_SECRET_KEY: SPONSOR_SECRET,
      X402_LEDGER_NETWORK: 'ledger:testnet',
    });
    expect(JSON.stringify(describeConfig(config))).not.toContain(SPONSOR_SECRET);
  });

  it.each([
    [{ X402_PAYMENT_ADDRESS_LEDGER: 'GNOTANADDRESS' }, 'X402_PAYMENT_ADDRESS_LEDGER must be a valid ledger G-address'],
    [{ X402_SUBSCRIPTION_PRICE: '0.20260001' }, 'X402_SUBSCRIPTION_PRICE must be a USD amount above 0 with at most 7'],
    [{ X402_SUBSCRIPTION_PRICE: '-1' }, 'X402_SUBSCRIPTION_PRICE must be a USD amount above 0'],
    // A free key would have the sponsor pay every settlement fee for nothing.
    [{ X402_SUBSCRIPTION_PRICE: '0' }, 'X402_SUBSCRIPTION_PRICE must be a USD amount above 0'],
    [{ X402_SUBSCRIPTION_PRICE: '0.0000000' }, 'X402_SUBSCRIPTION_PRICE must be a USD amount above 0'],
    [{ X402_MAX_SETTLEMENT_FEE_STROOPS: '99' }, 'X402_MAX_SETTLEMENT_FEE_STROOPS'],
    [{ X402_SETTLEMENT_LANES: '65' }, 'X402_SETTLEMENT_LANES'],
    [{ X402_SUBSCRIPTION_DAYS: '0' }, 'X402_SUBSCRIPTION_DAYS must be an integer between 1 and 3650'],
    [{ X402_LEDGER_NETWORK: 'stellar:pubnet' }, 'X402_LEDGER_NETWORK must be one of ledger:pubnet, ledger:testnet'],
    [{ CONTRACT_RPC_URL: 'soroban-rpc' }, 'CONTRACT_RPC_URL must be an http(s) URL or a comma-separated list of them'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(SubscriptionConfig, env)).toThrow(message);
  });

  it('refuses a malformed sponsor key without showing it', () => {
    const secret = OTHER_SECRET;
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
