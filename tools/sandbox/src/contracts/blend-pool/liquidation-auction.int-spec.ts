import { Keypair, rpc, scValToNative, xdr } from '@stellar/stellar-sdk';
import {
  Auction,
  AuctionData as SdkAuctionData,
  AuctionType,
  getAuctionsfromV2Events,
  poolEventV2FromEventResponse,
} from '@blend-capital/blend-sdk';
import {
  type AuctionData,
  REQUEST_TYPES,
  decodeAuctionData,
  decodePositions,
  fixedMulCeil,
  fixedMulFloor,
  ledgerEntriesOf,
  loadUserAuctions,
  scaleAuction,
} from '@rp/ledger';
import { address, i128, u32 } from '../scval';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { type TestPool, type TestRequest, UNIT, deployTestPool } from './test-pool';

describe('sandbox Blend pool: user liquidation auctions as Blend v2 runs them', () => {
  let sandbox: RunningSandbox;
  const lender = Keypair.random().publicKey();
  const user = Keypair.random().publicKey();
  const liquidator = Keypair.random().publicKey();
  let usdc: string;
  let xlm: string;
  let pool: string;
  let call: TestPool['call'];
  let submit: TestPool['submit'];
  let setXlmPrice: (price: bigint) => void;

  const positions = (who: string) => decodePositions(sandbox.ledger.view(pool, 'get_positions', [address(who)]));
  const newAuction = (percent: number) =>
    decodeAuctionData(
      call(pool, 'new_auction', [
        u32(0),
        address(user),
        xdr.ScVal.scvVec([address(xlm)]),
        xdr.ScVal.scvVec([address(usdc)]),
        u32(percent),
      ]),
    );
  const storedAuction = (): AuctionData =>
    decodeAuctionData(sandbox.ledger.view(pool, 'get_auction', [u32(0), address(user)]));
  const closeUntil = (sequence: number) => {
    while (sandbox.ledger.latest.sequence < sequence) sandbox.ledger.closeLedger();
  };
  /** The pool's events named `name` from `startLedger` on, as getEvents serves them. */
  const events = async (name: string, startLedger: number) => {
    const server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
    const page = await server.getEvents({
      filters: [{ type: 'contract', contractIds: [pool] }],
      startLedger,
      limit: 100,
    });
    return page.events.filter((e) => scValToNative(e.topic[0]) === name);
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0, scenario: 'empty' });
    const fixture = deployTestPool(sandbox.ledger, 'auction', 'Auctions');
    ({ usdc, xlm, pool, call, submit } = fixture);
    setXlmPrice = (price) => fixture.setPrice(xlm, price);
    call(usdc, 'mint', [address(user), i128(1_000n * UNIT)]);
    call(usdc, 'mint', [address(liquidator), i128(10_000n * UNIT)]);
    call(xlm, 'mint', [address(lender), i128(100_000n * UNIT)]);
    call(xlm, 'mint', [address(user), i128(1_000n * UNIT)]);
    submit(lender, [{ requestType: REQUEST_TYPES.Supply, address: xlm, amount: 100_000n * UNIT }]);
    submit(liquidator, [{ requestType: REQUEST_TYPES.SupplyCollateral, address: usdc, amount: 10_000n * UNIT }]);
    // 1000 USDC x 0.9 against 5000 XLM x 0.12 / 0.8: health factor 1.2.
    submit(user, [
      { requestType: REQUEST_TYPES.SupplyCollateral, address: usdc, amount: 1_000n * UNIT },
      { requestType: REQUEST_TYPES.Borrow, address: xlm, amount: 5_000n * UNIT },
    ]);
    sandbox.ledger.closeLedger();
  });

  afterAll(() => sandbox?.close());

  it('refuses new_auction against a healthy user with InvalidLiquidation (1211)', () => {
    expect(() => newAuction(50)).toThrow(/#1211/);
  });

  it('sizes the auction as v2 does below 1.0: too small (1214), too large (1213), then stored and announced', async () => {
    // XLM 0.12 -> 0.15: 900 effective collateral against 937.5 effective debt, health factor 0.96.
    setXlmPrice(1_500_000n);
    expect(() => newAuction(10)).toThrow(/#1214/);
    expect(() => newAuction(100)).toThrow(/#1213/);
    const startedAt = sandbox.ledger.latest.sequence;
    const auction = newAuction(50);
    const held = positions(user);
    // incentive 1 + (1 - 0.9 / 1.25) / 2 = 1.14: 750 USD of debt (a hair more with interest) x 50 % x 1.14 = 42.75 %
    // of the collateral.
    expect(auction.bid.get(xlm)).toBe(fixedMulCeil(held.liabilities.get(1)!, 5_000_000n, UNIT));
    const lotShare = Number(auction.lot.get(usdc)!) / Number(held.collateral.get(0)!);
    expect(lotShare).toBeGreaterThanOrEqual(0.4275);
    expect(lotShare).toBeLessThan(0.42751);
    expect(auction.block).toBe(startedAt + 2);
    expect(storedAuction()).toEqual(auction);
    expect(() => newAuction(50)).toThrow(/#1212/);
    // The auction starts the ledger after new_auction: a fill before it traps (a u32 underflow in v2).
    expect(() => submit(liquidator, [fill(50n)])).toThrow(/WasmVm/);
    // The user can no longer act alone while the auction stands.
    expect(() => submit(user, [{ requestType: REQUEST_TYPES.Repay, address: xlm, amount: UNIT }])).toThrow(/#1212/);

    sandbox.ledger.closeLedger();
    const [announced] = await events('new_auction', startedAt + 1);
    expect(scValToNative(announced.topic[1])).toBe(0);
    expect(scValToNative(announced.topic[2])).toBe(user);
    const [percent, data] = announced.value.vec()!;
    expect(percent.u32()).toBe(50);
    expect(decodeAuctionData(data)).toEqual(auction);
  });

  it('is read by the unmodified blend-sdk (ledger entry, events) and by loadUserAuctions', async () => {
    const auction = storedAuction();
    const server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
    const entries = await server.getLedgerEntries(SdkAuctionData.ledgerKey(pool, { auct_type: 0, user }));
    const sdkData = SdkAuctionData.fromLedgerEntryData(entries.entries[0].val);
    expect(sdkData).toEqual({ block: auction.block, bid: auction.bid, lot: auction.lot });

    const raw = await server._getEvents({
      filters: [{ type: 'contract', contractIds: [pool] }],
      startLedger: auction.block - 1,
      limit: 100,
    });
    const parsed = raw.events.map(poolEventV2FromEventResponse).filter((e) => e !== undefined);
    const { ongoing } = getAuctionsfromV2Events(parsed);
    expect(ongoing).toHaveLength(1);
    expect(ongoing[0].user).toBe(user);
    expect(ongoing[0].data).toEqual(sdkData);

    // The ramp: what a 50 % fill takes, ledger by ledger, as the sdk scales it (the sdk keeps the zero amounts the
    // contract leaves out).
    const nonZero = (m: Map<string, bigint>) => new Map([...m].filter(([, amount]) => amount > 0n));
    for (const ledgers of [0, 1, 100, 199, 200, 201, 300, 399, 400, 450]) {
      const [sdkScaled, sdkRest] = new Auction(user, AuctionType.Liquidation, sdkData).scale(
        auction.block + ledgers,
        50,
      );
      const ours = scaleAuction(auction, 50, auction.block + ledgers);
      expect({ ledgers, bid: ours.filled.bid, lot: ours.filled.lot }).toEqual({
        ledgers,
        bid: nonZero(sdkScaled.data.bid),
        lot: nonZero(sdkScaled.data.lot),
      });
      expect(ours.remaining?.bid).toEqual(sdkRest?.data.bid);
    }

    const read = await loadUserAuctions(ledgerEntriesOf(server), [
      { pool, user },
      { pool, user: liquidator },
    ]);
    expect(read.get(pool)?.get(user)).toEqual(auction);
    expect(read.get(pool)?.has(liquidator)).toBe(false);
  });

  it('fills by request 6 at the ramp: the lot and the bid move from the user to the filler', async () => {
    const auction = storedAuction();
    closeUntil(auction.block + 99); // the fill runs in the next ledger: 100 after the block, the lot at 50 %
    const userBefore = positions(user);
    const fillerBefore = positions(liquidator);
    const fillFrom = sandbox.ledger.latest.sequence + 1;
    submit(liquidator, [fill(50n)]);
    const lotHalf = fixedMulFloor(auction.lot.get(usdc)!, 5_000_000n, UNIT);
    const lotMoved = fixedMulFloor(lotHalf, 5_000_000n, UNIT);
    const bidMoved = fixedMulCeil(auction.bid.get(xlm)!, 5_000_000n, UNIT);
    expect(positions(liquidator).collateral.get(0)).toBe(fillerBefore.collateral.get(0)! + lotMoved);
    expect(positions(liquidator).liabilities.get(1)).toBe(bidMoved);
    expect(positions(user).collateral.get(0)).toBe(userBefore.collateral.get(0)! - lotMoved);
    expect(positions(user).liabilities.get(1)).toBe(userBefore.liabilities.get(1)! - bidMoved);
    const remaining = storedAuction();
    expect(remaining.lot.get(usdc)).toBe(auction.lot.get(usdc)! - lotHalf);
    expect(remaining.bid.get(xlm)).toBe(auction.bid.get(xlm)! - bidMoved);
    expect(remaining.block).toBe(auction.block);

    sandbox.ledger.closeLedger();
    const [filled] = await events('fill_auction', fillFrom);
    expect(scValToNative(filled.topic[2])).toBe(user);
    const [filler, percent, data] = filled.value.vec()!;
    expect(scValToNative(filler)).toBe(liquidator);
    expect(scValToNative(percent)).toBe(50n);
    expect(decodeAuctionData(data)).toEqual({
      bid: new Map([[xlm, bidMoved]]),
      lot: new Map([[usdc, lotMoved]]),
      block: auction.block,
    });
  });

  it('deletes by request 9 only once the user is healthy after the submit (1205 otherwise)', async () => {
    // The partial fill left the user healthy at 0.15; at 0.20 they are under 1.0 again.
    setXlmPrice(2_000_000n);
    expect(() =>
      submit(user, [{ requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: user, amount: 0n }]),
    ).toThrow(/#1205/);
    expect(() =>
      submit(liquidator, [{ requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: user, amount: 0n }]),
    ).toThrow(/#1200/);
    const from = sandbox.ledger.latest.sequence + 1;
    // The rescue: repay enough and delete the auction in one submit.
    submit(user, [
      { requestType: REQUEST_TYPES.Repay, address: xlm, amount: 1_000n * UNIT },
      { requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: user, amount: 0n },
    ]);
    expect(() => storedAuction()).toThrow(/WasmVm/);
    sandbox.ledger.closeLedger();
    const [deleted] = await events('delete_auction', from);
    expect(scValToNative(deleted.topic[1])).toBe(0);
    expect(scValToNative(deleted.topic[2])).toBe(user);
    expect(deleted.value.switch().name).toBe('scvVoid');
    // Without an auction, request 9 is a bad request.
    expect(() =>
      submit(user, [{ requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: user, amount: 0n }]),
    ).toThrow(/#1200/);
  });

  function fill(percent: bigint): TestRequest {
    return { requestType: REQUEST_TYPES.FillUserLiquidationAuction, address: user, amount: percent };
  }
});
