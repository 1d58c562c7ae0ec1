import { Contract, SorobanDataBuilder, StrKey, TransactionBuilder, nativeToScVal } from '@stellar/stellar-sdk';
import { buildInvocation } from '../transactions/build-invocation';
import {
  CloseFeeReader,
  MIN_INCLUSION_FEE,
  cappedInclusionFee,
  inclusionFeeOf,
  networkInclusionFee,
  repricedInclusionFee,
  resourceFeeOf,
  withInclusionFee,
} from './close-fee';

const SOURCE = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const op = new Contract(StrKey.encodeContract(Buffer.alloc(32, 3))).call('ping', nativeToScVal(1, { type: 'u32' }));
const stats = (p95: string, transactionCount = '40') => ({ p95, transactionCount });

describe('networkInclusionFee', () => {
  it('bids p95 of recent Soroban inclusion fees plus 25%, rounded up', () => {
    expect(networkInclusionFee(stats('1000'))).toBe(1250n);
    expect(networkInclusionFee(stats('1001'))).toBe(1252n);
  });

  it('never bids below the 100-stroop minimum', () => {
    expect(networkInclusionFee(stats('100'))).toBe(125n);
    expect(networkInclusionFee(stats('10'))).toBe(MIN_INCLUSION_FEE);
  });

  it('bids the minimum on an empty window (every field zero) or a malformed answer', () => {
    expect(networkInclusionFee(stats('0', '0'))).toBe(MIN_INCLUSION_FEE);
    expect(networkInclusionFee(stats('5000', '0'))).toBe(MIN_INCLUSION_FEE);
    expect(networkInclusionFee(stats('-5'))).toBe(MIN_INCLUSION_FEE);
    expect(networkInclusionFee(stats('1e9'))).toBe(MIN_INCLUSION_FEE);
    expect(networkInclusionFee(undefined)).toBe(MIN_INCLUSION_FEE);
  });
});

describe('cappedInclusionFee', () => {
  it('keeps the ask when inclusion plus resources stay within the cap', () => {
    expect(cappedInclusionFee(1250n, 50_000n, 100_000n)).toBe(1250n);
  });

  it('lowers the ask so the total fee equals the cap', () => {
    expect(cappedInclusionFee(80_000n, 50_000n, 100_000n)).toBe(50_000n);
  });

  it('never goes below the minimum, even when the resources alone reach the cap', () => {
    expect(cappedInclusionFee(1250n, 99_950n, 100_000n)).toBe(MIN_INCLUSION_FEE);
    expect(cappedInclusionFee(1250n, 200_000n, 100_000n)).toBe(MIN_INCLUSION_FEE);
  });

  it('keeps the total within the 32-bit fee field when the cap allows more', () => {
    expect(cappedInclusionFee(10_000_000_000n, 50_000n, 10_000_000_000n)).toBe(0xffffffffn - 50_000n);
  });
});

describe('CloseFeeReader', () => {
  it('reads the ask, keeps it for maxAgeMs, then reads again', async () => {
    let clock = 0;
    const answers = ['1000', '4000'];
    const source = { getFeeStats: jest.fn(async () => ({ sorobanInclusionFee: stats(answers.shift() ?? '0') })) };
    const reader = new CloseFeeReader(source, 1000, () => clock);
    expect(reader.known()).toBe(MIN_INCLUSION_FEE);
    expect(await reader.ask()).toBe(1250n);
    clock = 999;
    expect(await reader.ask()).toBe(1250n);
    expect(source.getFeeStats).toHaveBeenCalledTimes(1);
    clock = 1000;
    expect(await reader.ask()).toBe(5000n);
    expect(reader.known()).toBe(5000n);
  });

  it('falls back to the minimum when getFeeStats fails before any answer', async () => {
    const reader = new CloseFeeReader({ getFeeStats: () => Promise.reject(new Error('503')) });
    expect(await reader.ask()).toBe(MIN_INCLUSION_FEE);
  });

  it('keeps the last ask read when getFeeStats then fails', async () => {
    let clock = 0;
    let fail = false;
    const source = {
      getFeeStats: async () => {
        if (fail) throw new Error('connection refused');
        return { sorobanInclusionFee: stats('2000') };
      },
    };
    const reader = new CloseFeeReader(source, 1000, () => clock);
    expect(await reader.ask()).toBe(2500n);
    fail = true;
    clock = 5000;
    expect(await reader.ask()).toBe(2500n);
  });
});

describe('re-pricing an envelope', () => {
  const sorobanData = new SorobanDataBuilder().setResourceFee(40_000n).build();
  const unsigned = () => {
    const tx = buildInvocation({ source: SOURCE, sequence: '41', op, validUntil: 1_900_000_000, network: 'ledger:testnet' });
    return TransactionBuilder.cloneFrom(tx, { fee: '100', sorobanData }).build().toXDR();
  };

  it('reads the resource fee and the inclusion fee of a Soroban envelope', () => {
    expect(resourceFeeOf(unsigned())).toBe(40_000n);
    expect(inclusionFeeOf(unsigned())).toBe(100n);
  });

  it('sets the inclusion fee, keeping the resource fee and everything else', () => {
    const before = TransactionBuilder.fromXDR(unsigned(), 'Test SDF Network ; September 2015');
    const repriced = withInclusionFee(unsigned(), 1250n);
    const after = TransactionBuilder.fromXDR(repriced, 'Test SDF Network ; September 2015');
    expect(after.fee).toBe('41250');
    expect(inclusionFeeOf(repriced)).toBe(1250n);
    expect(resourceFeeOf(repriced)).toBe(40_000n);
    expect('sequence' in after && after.sequence).toBe('42');
    expect(after.toEnvelope().v1().tx().operations()[0].toXDR('base64')).toBe(
      before.toEnvelope().v1().tx().operations()[0].toXDR('base64'),
    );
  });

  it('refuses a total fee that does not fit the 32-bit fee field', () => {
    expect(() => withInclusionFee(unsigned(), 0xffffffffn)).toThrow(RangeError);
  });
});

describe('repricedInclusionFee (the re-pricing steps)', () => {
  const cap = 1_000_000n;
  it('doubles the last bid when the network asks less', () => {
    expect(repricedInclusionFee(100n, 100n, 50_000n, cap)).toBe(200n);
    expect(repricedInclusionFee(200n, 150n, 50_000n, cap)).toBe(400n);
  });

  it('bids the network ask when it is more than twice the last bid', () => {
    expect(repricedInclusionFee(100n, 1250n, 50_000n, cap)).toBe(1250n);
  });

  it('steps 100, 200, 400 ... up to the room the cap leaves beside the resource fee, then stops', () => {
    const bids: bigint[] = [];
    let bid: bigint | undefined = 100n;
    while (bid !== undefined) {
      bids.push(bid);
      bid = repricedInclusionFee(bid, 100n, 999_000n, cap);
    }
    expect(bids).toEqual([100n, 200n, 400n, 800n, 1000n]);
  });

  it('has no next step when the last bid already is at the cap', () => {
    expect(repricedInclusionFee(1000n, 5000n, 999_000n, cap)).toBeUndefined();
  });
});
