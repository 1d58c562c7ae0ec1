import { Keypair, StrKey } from '@stellar/stellar-base';
import { I128_MAX, isBaseUnitAmount, isContractAddress, isLedgerAccountAddress } from './ledger-values';

/** Changes one base32 character in the middle of a strkey so only the checksum can catch it. */
function corrupt(strkey: string): string {
  const i = 20;
  const replacement = strkey[i] === 'A' ? 'B' : 'A';
  return strkey.slice(0, i) + replacement + strkey.slice(i + 1);
}

describe('ledger values', () => {
  const account = Keypair.random().publicKey();
  const contract = StrKey.encodeContract(Buffer.alloc(32, 7));

  describe('isLedgerAccountAddress', () => {
    it('accepts a real G-address and the SEP-5 vector', () => {
      expect(isLedgerAccountAddress(account)).toBe(true);
      expect(isLedgerAccountAddress('GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6')).toBe(true);
    });

    it('rejects a G-address whose checksum does not match', () => {
      expect(isLedgerAccountAddress(corrupt(account))).toBe(false);
    });

    it('rejects contract addresses, secret seeds, muxed accounts, lowercase and non-strings', () => {
      expect(isLedgerAccountAddress(contract)).toBe(false);
      expect(isLedgerAccountAddress(Keypair.random().secret())).toBe(false);
      expect(isLedgerAccountAddress(StrKey.encodeMed25519PublicKey(Buffer.alloc(40, 1)))).toBe(false);
      expect(isLedgerAccountAddress(account.toLowerCase())).toBe(false);
      expect(isLedgerAccountAddress(`${account} `)).toBe(false);
      expect(isLedgerAccountAddress(42)).toBe(false);
      expect(isLedgerAccountAddress(undefined)).toBe(false);
    });
  });

  describe('isContractAddress', () => {
    it('accepts a real C-address (the testnet USDC contract)', () => {
      expect(isContractAddress('CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA')).toBe(true);
      expect(isContractAddress(contract)).toBe(true);
    });

    it('rejects a broken checksum and account addresses', () => {
      expect(isContractAddress(corrupt(contract))).toBe(false);
      expect(isContractAddress(account)).toBe(false);
      expect(isContractAddress('C')).toBe(false);
    });
  });

  describe('isBaseUnitAmount', () => {
    it.each(['0', '1', '2026000', I128_MAX.toString()])('accepts %s', (value) => {
      expect(isBaseUnitAmount(value)).toBe(true);
    });

    it.each([
      ['a negative amount', '-1'],
      ['a decimal', '1.5'],
      ['leading zeros', '007'],
      ['spaces', ' 1'],
      ['an exponent', '1e6'],
      ['the empty string', ''],
      ['one more than i128 max', (I128_MAX + 1n).toString()],
      ['a huge number', '9'.repeat(60)],
    ])('rejects %s', (_name, value) => {
      expect(isBaseUnitAmount(value)).toBe(false);
    });

    it('rejects numbers: amounts travel as strings', () => {
      expect(isBaseUnitAmount(5)).toBe(false);
    });
  });
});
