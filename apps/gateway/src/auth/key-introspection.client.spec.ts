import { identityOf } from './api-key';
import { isKeyIntrospection } from './key-introspection.client';

const ACTIVE = {
  active: true,
  keyId: 'k1',
  tier: 'standard',
  rateLimit: 60,
  burst: 120,
  expiresAt: '2030-01-01T00:00:00.000Z',
  email: 'buyer@example.com',
  account: 'wallet:GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6',
} as const;

describe("the subscription service's answer about a key", () => {
  it('is accepted with a proven account, which the identity forwarded to services carries', () => {
    expect(isKeyIntrospection(ACTIVE)).toBe(true);
    // Every field of the answer but `active`, the account included.
    expect({ active: true, ...identityOf(ACTIVE) }).toEqual(ACTIVE);
  });

  it.each([
    ['no account', { account: undefined }],
    ['an email for an account', { account: 'email:buyer@example.com' }],
    ['an account that is no string', { account: 7 }],
  ])('is not an answer with %s (the key is not admitted)', (_case, change) => {
    expect(isKeyIntrospection({ ...ACTIVE, ...change })).toBe(false);
  });
});
