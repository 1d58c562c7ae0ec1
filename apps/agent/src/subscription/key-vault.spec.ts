import { KeyVault } from './key-vault';

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
});
