import { KeyVault } from './key-vault';
import vectors from './key-vault.vectors.json';

const MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';
const OTHER = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';

describe('the sealed API key', () => {
  it('opens what it sealed, and the sealed form shows nothing of the key', () => {
    const vault = new KeyVault(MNEMONIC, WALLET);
    const sealed = vault.seal('rp_test_abcdefghijklmnopqrstuvwxyz012345');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('rp_test_');
    expect(vault.open(sealed)).toBe('rp_test_abcdefghijklmnopqrstuvwxyz012345');
    expect(vault.seal('same')).not.toBe(vault.seal('same')); // a fresh IV each time
  });

  it('cannot be opened with another mnemonic, or once altered', () => {
    const sealed = new KeyVault(MNEMONIC, WALLET).seal('rp_test_key');
    expect(() => new KeyVault(OTHER, WALLET).open(sealed)).toThrow();
    const altered = `${sealed.slice(0, -4)}AAAA`;
    expect(() => new KeyVault(MNEMONIC, WALLET).open(altered)).toThrow();
    expect(() => new KeyVault(MNEMONIC, WALLET).open('plain')).toThrow('not a sealed key of this agent');
  });

  it('seals payments under a key of their own: a sealed payment does not open as a key', () => {
    const payments = new KeyVault(MNEMONIC, WALLET, 'payment');
    const sealed = payments.seal('{"PAYMENT-SIGNATURE":"eyJ4NDAyVmVyc2lvbiI6Mn0="}');
    expect(payments.open(sealed)).toBe('{"PAYMENT-SIGNATURE":"eyJ4NDAyVmVyc2lvbiI6Mn0="}');
    expect(() => new KeyVault(MNEMONIC, WALLET).open(sealed)).toThrow();
  });
});

describe('keys sealed before the vault used SealedBox', () => {
  it('still open, the key and the payments each under their own key', () => {
    const { mnemonic, wallet, apiKey, payment } = vectors;
    expect(new KeyVault(mnemonic, wallet).open(apiKey.sealed)).toBe(apiKey.plain);
    expect(new KeyVault(mnemonic, wallet, 'payment').open(payment.sealed)).toBe(payment.plain);
    expect(() => new KeyVault(mnemonic, wallet).open(payment.sealed)).toThrow();
  });
});
