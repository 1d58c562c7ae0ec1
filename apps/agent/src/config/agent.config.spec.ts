import { describeConfig, loadConfig } from '@rp/platform';
import { AgentConfig } from './agent.config';

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
});
