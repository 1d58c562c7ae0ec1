import {
  Account,
  Keypair,
  Networks,
  Operation,
  SorobanDataBuilder,
  StrKey,
  TransactionBuilder,
} from '@stellar/stellar-sdk';
import { parseEnvelope, type ParsedEnvelope } from '../transactions/envelope';
import { feeCharged, feeRate, inclusionBid, selectForLedger } from './surge-pricing';

const RESOURCE_FEE = 5_000n;
const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 7));

/** A real signed envelope bidding `inclusionFee` (the builder adds the resource fee), optionally fee-bumped. */
function envelope(inclusionFee: number, bumpTo?: number): ParsedEnvelope {
  const source = Keypair.random();
  const tx = new TransactionBuilder(new Account(source.publicKey(), '1'), {
    fee: String(inclusionFee),
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.invokeContractFunction({ contract: CONTRACT, function: 'decimals', args: [] }))
    .setSorobanData(new SorobanDataBuilder().setResourceFee(RESOURCE_FEE.toString()).build())
    .setTimeout(60)
    .build();
  tx.sign(source);
  if (bumpTo === undefined) return parseEnvelope(tx.toXDR(), Networks.TESTNET);
  const bump = TransactionBuilder.buildFeeBumpTransaction(source, String(bumpTo), tx, Networks.TESTNET);
  bump.sign(source);
  return parseEnvelope(bump.toXDR(), Networks.TESTNET);
}

describe('surge pricing (stellar-core getFee with a lane base fee)', () => {
  it('reads the bid as the fee less the resource fee, per operation (a fee bump counts one more)', () => {
    expect(inclusionBid(envelope(300))).toBe(300n);
    expect(feeRate(envelope(300))).toBe(300n);
    // The SDK's fee bump sets the outer fee to the given rate times (operations + 1), plus the resource fee.
    const bumped = envelope(300, 800);
    expect(inclusionBid(bumped)).toBe(1_600n);
    expect(feeRate(bumped)).toBe(800n);
  });

  it('takes everything at the network minimum while the limit does not bind', () => {
    const queue = [envelope(900), envelope(100)];
    const selection = selectForLedger(queue, 2);
    expect(selection).toEqual({ included: queue, waiting: [], baseFee: 100n });
    expect(queue.map((parsed) => feeCharged(parsed, selection.baseFee))).toEqual([
      RESOURCE_FEE + 100n,
      RESOURCE_FEE + 100n,
    ]);
  });

  it('past the limit: highest rate first, ties by arrival, the lowest included rate as base fee', () => {
    const [a, b, c, d, e] = [envelope(200), envelope(700), envelope(400), envelope(400), envelope(250, 350)];
    const selection = selectForLedger([a, b, c, d, e], 3);
    expect(selection.included).toEqual([b, c, d]);
    expect(selection.waiting).toEqual([a, e]);
    expect(selection.baseFee).toBe(400n);
    expect(feeCharged(b, selection.baseFee)).toBe(RESOURCE_FEE + 400n);
    // Never more than the bid: min(700, 400 x 2 operations) for the fee bump, had it been included.
    expect(feeCharged(e, selection.baseFee)).toBe(RESOURCE_FEE + 700n);
  });

  it('a bumped transaction competes on its rate per operation', () => {
    const plain = envelope(500);
    const bumped = envelope(100, 600); // 1200 over two operations: 600 each
    expect(selectForLedger([plain, bumped], 1).included).toEqual([bumped]);
  });
});
