import { describeConfig, loadConfig } from '@rp/platform-core';
import { AgentConfig, isLoopbackHost } from './agent.config';

const MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';
const required = { LEDGER_MNEMONIC: MNEMONIC, CONTRACT_RPC_URL: 'https://soroban-testnet.stellar.org' };

describe('agent settings', () => {
  it('requires the mnemonic and the RPC endpoint, naming both', () => {
    expect(() => loadConfig(AgentConfig, {})).toThrow(
      'invalid configuration: LEDGER_MNEMONIC is required; CONTRACT_RPC_URL is required',
    );
  });

  it('has the documented defaults and runs without Redis unless one is configured', () => {
    const config = loadConfig(AgentConfig, required);
    expect(config).toMatchObject({
      PORT: 8080,
      POLL_INTERVAL_MS: 5000,
      SLIPPAGE: 100,
      CLOSE_COOLDOWN_TTL: 300,
      SERVICE_MOCK: false,
    });
    expect(config.configuredRedis()).toBeUndefined();
    expect(loadConfig(AgentConfig, { ...required, REDIS_URL: 'redis://cache:6379' }).configuredRedis()).toMatchObject({
      url: 'redis://cache:6379',
    });
  });

  it('reads SERVICE_MOCK as a boolean', () => {
    expect(loadConfig(AgentConfig, { ...required, SERVICE_MOCK: 'true' }).SERVICE_MOCK).toBe(true);
    expect(() => loadConfig(AgentConfig, { ...required, SERVICE_MOCK: 'maybe' })).toThrow(
      'SERVICE_MOCK must be true or false',
    );
  });

  it('never shows the mnemonic, not even when it is malformed', () => {
    const malformed = 'Illness spike retreat truth';
    let message = '';
    try {
      loadConfig(AgentConfig, { ...required, LEDGER_MNEMONIC: malformed });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'invalid configuration: LEDGER_MNEMONIC must be 12 to 24 lower-case words separated by single spaces (value hidden)',
    );
    expect(JSON.stringify(describeConfig(loadConfig(AgentConfig, required)))).not.toContain('illness');
  });

  it('refuses slippage outside 0..10000 basis points', () => {
    expect(() => loadConfig(AgentConfig, { ...required, SLIPPAGE: '10001' })).toThrow(
      'SLIPPAGE must be an integer number of basis points between 0 and 10000',
    );
  });

  it('has the documented defaults of the agent-only settings', () => {
    const config = loadConfig(AgentConfig, required);
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      ACT_AT_RISK_LEVEL: 'critical',
      CLOSE_STRATEGY: 'unwind',
      TARGET_HEALTH_FACTOR: 1.5,
      LOW_FEE_BALANCE_XLM: 5,
      WATCHED_POOLS: [],
      LOCK_LEASE_MS: 15_000,
      SUBSCRIPTION_CHECK_INTERVAL_MS: 86_400_000,
    });
    expect(config.actLevel()).toBe('critical');
  });

  it('reads the acting level in either vocabulary', () => {
    expect(loadConfig(AgentConfig, { ...required, ACT_AT_RISK_LEVEL: 'alert' }).actLevel()).toBe('high');
    expect(() => loadConfig(AgentConfig, { ...required, ACT_AT_RISK_LEVEL: 'severe' })).toThrow(
      'ACT_AT_RISK_LEVEL must be one of low, medium, high, critical (or healthy, warn, alert, emergency)',
    );
  });

  it.each([
    [{ CLOSE_STRATEGY: 'panic' }, 'CLOSE_STRATEGY must be one of unwind, deleverage'],
    [{ TARGET_HEALTH_FACTOR: '1' }, 'TARGET_HEALTH_FACTOR must be a number between 1.01 and 100'],
    [{ WATCHED_POOLS: 'CBGG,nope' }, 'WATCHED_POOLS must be a comma-separated list of contract (C...) addresses'],
    [{ UNWIND_RECEIVER: 'GABC' }, 'UNWIND_RECEIVER must be a contract (C...) address'],
    [{ LOCK_LEASE_MS: '10' }, 'LOCK_LEASE_MS must be an integer of at least 1000'],
    [{ STATUS_TOKEN: 'short' }, 'STATUS_TOKEN must be at least 16 characters (value hidden)'],
    [{ LOW_FEE_BALANCE_XLM: '-1' }, 'LOW_FEE_BALANCE_XLM must be a number of XLM, 0 or more'],
    [{ MAX_CLOSE_FEE_STROOPS: '0.5' }, 'MAX_CLOSE_FEE_STROOPS must be a whole number of stroops between 100 and'],
    [{ MAX_CLOSE_FEE_STROOPS: '99' }, 'MAX_CLOSE_FEE_STROOPS must be a whole number of stroops between 100 and'],
    [{ BLEND_POOL_FACTORY: 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX' }, 'BLEND_POOL_FACTORY must be a valid contract C-address'],
  ])('refuses %j naming the setting', (env, message) => {
    expect(() => loadConfig(AgentConfig, { ...required, ...env })).toThrow(message);
  });

  it('caps a close at 10 XLM of fees and leaves the pool factory to the network unless set', () => {
    const config = loadConfig(AgentConfig, required);
    expect([config.MAX_CLOSE_FEE_STROOPS, config.BLEND_POOL_FACTORY]).toEqual([100_000_000, undefined]);
    const factory = 'CDSYOAVXFY7SM5S64IZPPPYB4GVGGLMQVFREPSQQEZVIWXX5R23G4QSU';
    expect(loadConfig(AgentConfig, { ...required, MAX_CLOSE_FEE_STROOPS: '5000000', BLEND_POOL_FACTORY: factory })).toMatchObject({
      MAX_CLOSE_FEE_STROOPS: 5_000_000,
      BLEND_POOL_FACTORY: factory,
    });
  });

  it('reads the watched pools as a list', () => {
    const pool = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
    expect(loadConfig(AgentConfig, { ...required, WATCHED_POOLS: ` ${pool} ,` }).WATCHED_POOLS).toEqual([pool]);
  });

  it('reads the purchase limits as exact decimal USD, the spend cap three times the price unless set', () => {
    const config = loadConfig(AgentConfig, required);
    expect([config.SERVICE_MAX_PRICE, config.maxSpend30dUsd()]).toEqual(['0.50', '1.5']);
    expect(loadConfig(AgentConfig, { ...required, SERVICE_MAX_PRICE: '0.2026' }).maxSpend30dUsd()).toBe('0.6078');
    expect(loadConfig(AgentConfig, { ...required, SERVICE_MAX_SPEND_30D: '2' }).maxSpend30dUsd()).toBe('2');
    for (const [name, value, message] of [
      ['SERVICE_MAX_PRICE', '0', 'SERVICE_MAX_PRICE must be a USD amount above 0 with at most 7 decimals'],
      ['SERVICE_MAX_PRICE', '0.12345678', 'SERVICE_MAX_PRICE must be a USD amount above 0'],
      ['SERVICE_MAX_SPEND_30D', '-1', 'SERVICE_MAX_SPEND_30D must be a USD amount above 0'],
      ['SERVICE_PAY_TO', 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA', 'SERVICE_PAY_TO must be a valid ledger G-address'],
      ['SERVICE_PAYMENT_ASSET', 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX', 'SERVICE_PAYMENT_ASSET must be a valid contract C-address'],
    ]) {
      expect(() => loadConfig(AgentConfig, { ...required, [name]: value })).toThrow(message);
    }
  });

  it("checks the owner's channels, and never shows the webhook URL", () => {
    const hook = 'https://discord.com/api/webhooks/1/secret-hook-token';
    const config = loadConfig(AgentConfig, {
      ...required,
      NOTIFY_TELEGRAM_CHAT_ID: '-1001234567890',
      NOTIFY_EMAIL: 'owner@example.com',
      NOTIFY_WEBHOOK_URL: hook,
    });
    expect(config.NOTIFY_TELEGRAM_CHAT_ID).toBe('-1001234567890');
    expect(JSON.stringify(describeConfig(config))).not.toContain('secret-hook-token');
    expect(() => loadConfig(AgentConfig, { ...required, NOTIFY_TELEGRAM_CHAT_ID: 'my chat' })).toThrow(
      'NOTIFY_TELEGRAM_CHAT_ID must be a Telegram user id',
    );
    expect(() => loadConfig(AgentConfig, { ...required, NOTIFY_EMAIL: 'nobody' })).toThrow(
      'NOTIFY_EMAIL must be an email address',
    );
    expect(() => loadConfig(AgentConfig, { ...required, NOTIFY_WEBHOOK_URL: 'ftp://x/secret-hook-token' })).toThrow(
      /NOTIFY_WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL \(value hidden\)/,
    );
  });

  it('takes https:// for the service and the RPC, and plain http:// only to a loopback host', () => {
    for (const url of [
      'https://soroban.example.com/rpc',
      'https://10.0.0.5:8000',
      'http://127.0.0.1:3000',
      'http://127.8.9.10/rpc',
      'http://localhost:3000',
      'http://LOCALHOST',
      'http://[::1]:3000',
    ]) {
      expect(loadConfig(AgentConfig, { ...required, SERVICE_BASE_URL: url, CONTRACT_RPC_URL: url })).toMatchObject({
        SERVICE_BASE_URL: url,
        CONTRACT_RPC_URL: url,
      });
    }
  });

  it.each([
    'http://example.com',
    'http://gateway.risk-protection.svc:3000',
    'http://10.0.0.5:3000',
    'http://128.0.0.1',
    'http://127.0.0.1.example.com',
    'http://localhost.example.com',
    'http://[::2]:3000',
    'http://0.0.0.0:3000',
  ])('refuses plain %s for either URL, naming the setting, the rule and no credential', (url) => {
    const withCredentials = url.replace('//', '//user:pa55word@');
    for (const name of ['SERVICE_BASE_URL', 'CONTRACT_RPC_URL']) {
      let message = '';
      try {
        loadConfig(AgentConfig, { ...required, [name]: withCredentials });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(
        `${name} must be an https:// URL (plain http:// only to a loopback host: 127.0.0.0/8, ::1, localhost)`,
      );
      expect(message).not.toContain('pa55word');
    }
  });

  it('takes a comma-separated list of RPC endpoints, each checked, shown by origin only when one is refused', () => {
    const list = 'https://rpc.example.com/v1/PATH-KEY, http://127.0.0.1:8000/rpc';
    expect(loadConfig(AgentConfig, { ...required, CONTRACT_RPC_URL: list }).CONTRACT_RPC_URL).toBe(list);
    let message = '';
    try {
      loadConfig(AgentConfig, { ...required, CONTRACT_RPC_URL: `${list}, http://rpc.example.org/OTHER-KEY` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('CONTRACT_RPC_URL must be an https:// URL (plain http:// only to a loopback host');
    expect(message).toContain('"https://rpc.example.com,http://127.0.0.1:8000,http://rpc.example.org"');
    expect(message).not.toMatch(/PATH-KEY|OTHER-KEY/);
  });

  it('knows loopback hosts exactly', () => {
    expect(['127.0.0.1', '127.255.255.255', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['127.0.0.256', '127.1', '::', '126.0.0.1', 'localhost.', ''].map(isLoopbackHost)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
