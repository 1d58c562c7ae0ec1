import { API_KEY_PATTERN } from '@rp/contracts';
import { generateApiKey, hashApiKey } from './api-key';

const EXPECTED_SHA256 = '73e250d864e62ae7e42f81e3555f394b4c60ea881cc08a79b4eda06490a2dc59';

describe('API keys', () => {
  it('carries the network in its prefix and 32 base62 characters', () => {
    expect(generateApiKey('ledger:pubnet')).toMatch(/^rp_live_[0-9A-Za-z]{32}$/);
    expect(generateApiKey('ledger:testnet')).toMatch(/^rp_test_[0-9A-Za-z]{32}$/);
    expect(generateApiKey('ledger:testnet')).toMatch(API_KEY_PATTERN);
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey('ledger:testnet'));
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((key) => [...key.slice(8)]));
    expect(seen.size).toBe(62);
  });

  it('is stored as its sha256', () => {
    // sha256("rp_test_abc"), computed independently with `printf rp_test_abc | sha256sum`.
    expect(hashApiKey('rp_test_abc')).toBe(EXPECTED_SHA256);
    expect(hashApiKey('rp_test_abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('rp_test_abc')).not.toBe(hashApiKey('rp_test_abd'));
  });
});
