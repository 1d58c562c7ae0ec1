import {
  PARTNER_NAME_PATTERN,
  isAccount,
  keyAccount,
  partnerAccount,
  unnamedPartnerAccount,
  walletAccount,
} from './account';

const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const KEY_ID = '2f1a5d53-4da5-4da0-b0f3-3626cc7c1e98';

describe('accounts', () => {
  it('are a paying wallet, a named partner, or a key alone', () => {
    expect(walletAccount(WALLET)).toBe(`wallet:${WALLET}`);
    expect(partnerAccount('acme')).toBe('partner:acme');
    expect(unnamedPartnerAccount(KEY_ID)).toBe(`partner:key-${KEY_ID}`);
    expect(keyAccount(KEY_ID)).toBe(`key:${KEY_ID}`);
    for (const account of [
      walletAccount(WALLET),
      partnerAccount('acme'),
      unnamedPartnerAccount(KEY_ID),
      keyAccount(KEY_ID),
    ]) {
      expect(isAccount(account)).toBe(true);
    }
  });

  it.each([
    ['an email (what accounts were before)', 'email:victim@example.com'],
    ['a bare key id', KEY_ID],
    ['a contract for a wallet', `wallet:C${WALLET.slice(1)}`],
    ['a short wallet', `wallet:${WALLET.slice(0, 20)}`],
    ['an upper-case partner', 'partner:ACME'],
    ['a partner name with a colon', 'partner:acme:other'],
    ['nothing', ''],
    ['no string', 42],
  ])('refuses %s', (_case, value) => {
    expect(isAccount(value)).toBe(false);
  });

  it('lets operators name partners in lower case, 1 to 64 characters', () => {
    expect(PARTNER_NAME_PATTERN.test('acme-corp.eu_1')).toBe(true);
    expect(PARTNER_NAME_PATTERN.test('a'.repeat(64))).toBe(true);
    expect(PARTNER_NAME_PATTERN.test('a'.repeat(65))).toBe(false);
    expect(PARTNER_NAME_PATTERN.test('-acme')).toBe(false);
    expect(PARTNER_NAME_PATTERN.test('Acme')).toBe(false);
  });
});
