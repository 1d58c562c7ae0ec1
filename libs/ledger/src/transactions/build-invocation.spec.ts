import { Account, Contract, Networks, StrKey, nativeToScVal } from '@stellar/stellar-sdk';
import { InvalidAddressError } from '../network/addresses';
import { InvalidValidityError, buildInvocation, validUntilSeconds } from './build-invocation';

const SOURCE = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const op = new Contract(StrKey.encodeContract(Buffer.alloc(32, 3))).call('ping', nativeToScVal(1, { type: 'u32' }));

describe('buildInvocation', () => {
  it('sets time bounds 0..validUntil from a Date, the next sequence and the network', () => {
    const tx = buildInvocation({
      source: SOURCE,
      sequence: '41',
      op,
      validUntil: new Date('2030-01-01T00:00:30.900Z'),
      network: 'ledger:testnet',
    });
    expect(tx.timeBounds).toEqual({ minTime: '0', maxTime: String(Date.UTC(2030, 0, 1, 0, 0, 30) / 1000) });
    expect(tx.sequence).toBe('42');
    expect(tx.source).toBe(SOURCE);
    expect(tx.networkPassphrase).toBe(Networks.TESTNET);
    expect(tx.fee).toBe('100');
    expect(tx.operations).toHaveLength(1);
    expect(tx.operations[0].type).toBe('invokeHostFunction');
  });

  it('accepts unix seconds, a fee, and a loaded Account (whose sequence advances)', () => {
    const account = new Account(SOURCE, '7');
    const tx = buildInvocation({ source: account, op, fee: 1000, validUntil: 1_900_000_000, network: 'ledger:pubnet' });
    expect(tx.timeBounds).toEqual({ minTime: '0', maxTime: '1900000000' });
    expect(tx.fee).toBe('1000');
    expect(tx.sequence).toBe('8');
    expect(account.sequenceNumber()).toBe('8');
    expect(tx.networkPassphrase).toBe(Networks.PUBLIC);
  });

  it('rejects malformed bounds and sources', () => {
    for (const validUntil of [0, -5, 1.5, Number.NaN, new Date(Number.NaN)]) {
      expect(() => validUntilSeconds(validUntil)).toThrow(InvalidValidityError);
    }
    expect(() =>
      buildInvocation({ source: 'GNOPE', sequence: 1n, op, validUntil: 1_900_000_000, network: 'ledger:testnet' }),
    ).toThrow(InvalidAddressError);
  });
});
