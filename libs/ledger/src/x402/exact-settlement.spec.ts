import { FeeBumpTransaction, Keypair, SorobanDataBuilder, TransactionBuilder, hash } from '@stellar/stellar-sdk';
import { networkPassphrase } from '../network/ledger-network';
import { USDC_CONTRACT } from '../network/usdc';
import { buildInvocation } from '../transactions/build-invocation';
import { exactTransferOperation } from './exact-payment';
import {
  SETTLEMENT_INCLUSION_FEE,
  SettlementFeeTooHighError,
  buildSettlement,
  repriceSettlement,
  settlementInclusionBid,
  settlementInclusionFee,
  settlementLanes,
} from './exact-settlement';
import { readExactTransfer } from './exact-transfer';

const TESTNET = networkPassphrase('ledger:testnet');
const payer = Keypair.fromRawEd25519Seed(hash(Buffer.from('payer')));
const sponsor = Keypair.fromRawEd25519Seed(hash(Buffer.from('sponsor')));
const receiver = Keypair.fromRawEd25519Seed(hash(Buffer.from('receiver'))).publicKey();
const [lane] = settlementLanes(sponsor, 1);
const MIN = BigInt(SETTLEMENT_INCLUSION_FEE);

describe('settlementInclusionFee', () => {
  it('bids what the network asks when the total stays within the cap', () => {
    expect(settlementInclusionFee(1250n, 14_000n, 200_000n, true)).toBe(1250n);
    expect(settlementInclusionFee(1250n, 14_000n, 200_000n, false)).toBe(1250n);
  });

  it('lowers the bid so resources plus the inclusion fee (twice through a fee bump) equal the cap', () => {
    expect(settlementInclusionFee(500_000n, 14_000n, 200_000n, true)).toBe(93_000n);
    expect(settlementInclusionFee(500_000n, 14_000n, 200_000n, false)).toBe(186_000n);
  });

  it('never bids below the minimum, even when the cap leaves no room (buildSettlement then refuses)', () => {
    expect(settlementInclusionFee(10n, 14_000n, 200_000n, true)).toBe(MIN);
    expect(settlementInclusionFee(1250n, 199_950n, 200_000n, true)).toBe(MIN);
  });
});

describe('buildSettlement at a priced inclusion fee', () => {
  const transfer = () => {
    const op = exactTransferOperation(payer.publicKey(), {
      scheme: 'exact',
      network: 'stellar:testnet',
      amount: '2026000',
      asset: USDC_CONTRACT['ledger:testnet'],
      payTo: receiver,
      maxTimeoutSeconds: 600,
      extra: { areFeesSponsored: true },
    });
    const tx = buildInvocation({
      source: payer.publicKey(),
      sequence: '100',
      op,
      validUntil: 2e9,
      network: 'ledger:testnet',
    });
    return readExactTransfer(tx.toEnvelope().toXDR('base64'), TESTNET);
  };
  const simulation = {
    transactionData: new SorobanDataBuilder().setResourceFee(14_000n).build(),
    resourceFee: 14_000n,
    totalFee: 14_000n + 2n * MIN,
  };
  const request = (inclusionFee: bigint | undefined, source = lane, maxFee = 200_000n) => ({
    transfer: transfer(),
    simulation,
    lane: source,
    laneSequence: '41',
    sponsor,
    passphrase: TESTNET,
    validUntil: 2_000_000_000,
    maxFee,
    ...(inclusionFee !== undefined && { inclusionFee }),
  });

  it('bids the inclusion fee in the lane transaction and the sponsor fee bump (the sponsor pays it twice)', () => {
    const settlement = buildSettlement(request(1250n));
    const bump = TransactionBuilder.fromXDR(settlement.envelope, TESTNET) as FeeBumpTransaction;
    expect(bump).toBeInstanceOf(FeeBumpTransaction);
    expect(bump.innerTransaction.fee).toBe(String(14_000 + 1250));
    expect(settlement.maxFee).toBe(14_000n + 2n * 1250n);
  });

  it('bids the minimum without an inclusion fee (as before)', () => {
    expect(buildSettlement(request(undefined)).maxFee).toBe(14_000n + 2n * MIN);
  });

  it('when the sponsor is its own lane, pays the inclusion fee once', () => {
    expect(buildSettlement(request(1250n, sponsor)).maxFee).toBe(14_000n + 1250n);
  });

  it('refuses a bid that takes the total above the cap, with or without a fee bump', () => {
    expect(() => buildSettlement(request(100_000n, lane, 100_000n))).toThrow(SettlementFeeTooHighError);
    expect(() => buildSettlement(request(100_000n, sponsor, 100_000n))).toThrow(SettlementFeeTooHighError);
  });

  describe('repriceSettlement', () => {
    const reprice = (envelope: string, ask: bigint, maxFee = 200_000n) =>
      repriceSettlement({ envelope, sponsor, passphrase: TESTNET, ask, maxFee });
    const innerHash = (envelope: string) => {
      const parsed = TransactionBuilder.fromXDR(envelope, TESTNET);
      return (parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed).hash().toString('hex');
    };

    it('bumps the same signed lane transaction at the ask when it is 10x the bid or more', () => {
      const sent = buildSettlement(request(100n));
      const repriced = reprice(sent.envelope, 1250n);
      expect(repriced?.maxFee).toBe(14_000n + 2n * 1250n);
      expect(repriced?.hash).not.toBe(sent.hash);
      expect(innerHash(repriced?.envelope ?? '')).toBe(innerHash(sent.envelope));
      const bump = TransactionBuilder.fromXDR(repriced?.envelope ?? '', TESTNET) as FeeBumpTransaction;
      expect(bump.feeSource).toBe(sponsor.publicKey());
      expect(bump.innerTransaction.signatures).toHaveLength(1);
      expect(settlementInclusionBid(sent.envelope, TESTNET)).toBe(100n);
      expect(settlementInclusionBid(repriced?.envelope ?? '', TESTNET)).toBe(1250n);
    });

    it('bids 10x the current bid when the ask is lower (the queue replaces only at 10x)', () => {
      expect(reprice(buildSettlement(request(150n)).envelope, 200n)?.maxFee).toBe(14_000n + 2n * 1500n);
    });

    it('wraps the sponsor’s own settlement in a fee bump of it', () => {
      const sent = buildSettlement(request(100n, sponsor));
      const repriced = reprice(sent.envelope, 1250n);
      expect(repriced?.maxFee).toBe(14_000n + 2n * 1250n);
      expect(innerHash(repriced?.envelope ?? '')).toBe(innerHash(sent.envelope));
    });

    it('leaves it at its bid when the new bid does not fit the cap, or the network asks no more than it bids', () => {
      expect(reprice(buildSettlement(request(100n)).envelope, 1250n, 16_000n)).toBeUndefined();
      expect(reprice(buildSettlement(request(1250n)).envelope, 1250n)).toBeUndefined();
    });
  });
});
