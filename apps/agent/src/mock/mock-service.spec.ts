import { LedgerWallet, signAhead } from '@rp/ledger';
import { MOCK_POOL, MockService } from './mock-service';

const wallet = LedgerWallet.fromMnemonic('illness spike retreat truth genius clock brain pass fit cave bargain toe');

describe('the mock service', () => {
  it('plays a position drifting from low into critical, and starts again after a close', () => {
    const mock = new MockService(wallet.address);
    const levels = Array.from({ length: 25 }, () => mock.risk().positions[0].riskLevel);
    expect(levels[0]).toBe('low');
    expect(levels).toContain('medium');
    expect(levels).toContain('high');
    expect(levels.at(-1)).toBe('critical');
    mock.closed();
    expect(mock.risk().positions[0]).toMatchObject({ poolAddress: MOCK_POOL, healthFactor: 1.6, riskLevel: 'low' });
  });

  it('builds a real transaction of the wallet that the agent can sign (and never send)', () => {
    const built = new MockService(wallet.address).build('41');
    const signed = signAhead(wallet, built.unsignedXdr, 'Test SDF Network ; September 2015');
    expect(signed.sequence).toBe('42');
    expect(signed.validUntil).toBeGreaterThan(Date.now() / 1000);
    expect(built.builtBy).toBe('mock');
  });

  it('answers an active subscription', () => {
    expect(new MockService(wallet.address).subscription()).toMatchObject({ active: true, tier: 'mock' });
  });
});
