import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { auctionModifiers, decodeAuctionData, encodeAuctionData, scaleAuction } from './auctions';

const XLM = StrKey.encodeContract(Buffer.alloc(32, 2));
const USDC = StrKey.encodeContract(Buffer.alloc(32, 1));
const auction = { bid: new Map([[XLM, 1_000_000n]]), lot: new Map([[USDC, 2_000_001n]]), block: 1000 };

describe('user liquidation auctions (Blend v2 auction.rs)', () => {
  it('ramps the lot up over 200 ledgers, then the bid down over the next 200', () => {
    expect(auctionModifiers(0)).toEqual({ lot: 0n, bid: 10_000_000n });
    expect(auctionModifiers(1)).toEqual({ lot: 50_000n, bid: 10_000_000n });
    expect(auctionModifiers(100)).toEqual({ lot: 5_000_000n, bid: 10_000_000n });
    expect(auctionModifiers(200)).toEqual({ lot: 10_000_000n, bid: 10_000_000n });
    expect(auctionModifiers(201)).toEqual({ lot: 10_000_000n, bid: 9_950_000n });
    expect(auctionModifiers(300)).toEqual({ lot: 10_000_000n, bid: 5_000_000n });
    expect(auctionModifiers(400)).toEqual({ lot: 10_000_000n, bid: 0n });
    expect(auctionModifiers(450)).toEqual({ lot: 10_000_000n, bid: 0n });
  });

  it('scales the filled part (bid up, lot down) and keeps the rest unscaled', () => {
    const half = scaleAuction(auction, 50, 1100);
    // 50 % of the lot is 1_000_000 (floor of 1_000_000.5), then 50 % of the ramp: 500_000.
    expect(half.filled).toEqual({ bid: new Map([[XLM, 500_000n]]), lot: new Map([[USDC, 500_000n]]), block: 1000 });
    expect(half.remaining).toEqual({
      bid: new Map([[XLM, 500_000n]]),
      lot: new Map([[USDC, 1_000_001n]]),
      block: 1000,
    });
    const full = scaleAuction(auction, 100, 1300);
    expect(full.filled).toEqual({ bid: new Map([[XLM, 500_000n]]), lot: new Map([[USDC, 2_000_001n]]), block: 1000 });
    expect(full.remaining).toBeUndefined();
    // At the auction's first ledger the lot is empty: the filler takes the debt for nothing.
    expect(scaleAuction(auction, 100, 1000).filled.lot.size).toBe(0);
  });

  it('encodes AuctionData as the host sorts it (struct fields by name, addresses by XDR) and reads it back', () => {
    const account = Keypair.random().publicKey();
    const mixed = {
      bid: new Map([
        [XLM, 1n],
        [account, 2n],
      ]),
      lot: new Map([[USDC, 3n]]),
      block: 7,
    };
    const encoded = encodeAuctionData(mixed);
    expect(encoded.map()!.map((e) => e.key().sym().toString())).toEqual(['bid', 'block', 'lot']);
    // Accounts sort before contracts.
    const bidKeys = encoded
      .map()![0]
      .val()
      .map()!
      .map((e) => e.key().address().switch().name);
    expect(bidKeys).toEqual(['scAddressTypeAccount', 'scAddressTypeContract']);
    expect(decodeAuctionData(encoded)).toEqual(mixed);
  });
});
