/**
 * `POST /api/v1/txb/build` with `action: "RESCUE"` in-process against the sandbox pool, which runs Blend v2's user
 * liquidation auctions: the rescue repays (or supplies collateral) just enough and deletes the auction in one
 * `submit` that lands; 404 without an auction; 422 when the wallet cannot reach health.
 */
import type { BuildResponse } from '@rp/contracts';
import {
  type LedgerWallet,
  blendScVal,
  decodePositions,
  networkPassphrase,
  poolRequestsOf,
  readInvocation,
} from '@rp/ledger';
import { DEMO_PRICES, UNIT, hasAuction } from '@rp/sandbox';
import { type TxbHarness, startTxbHarness } from '../../test/txb.int-support';

const TESTNET = networkPassphrase('ledger:testnet');

function requestsOf(transactionXdr: string) {
  const invocation = readInvocation(transactionXdr, TESTNET);
  if (!invocation) throw new Error('not one contract invocation');
  return {
    fn: invocation.fn,
    requests: poolRequestsOf(invocation).requests.map((r) => [r.requestType, r.address, r.amount] as const),
  };
}

describe('RESCUE: out of a liquidation auction', () => {
  let h: TxbHarness;
  let repays: LedgerWallet;
  let supplies: LedgerWallet;
  let penniless: LedgerWallet;
  let noAuction: LedgerWallet;
  let unwinds: LedgerWallet;

  const build = (body: object, caller = h.caller()) =>
    h.call('POST', '/api/v1/txb/build', caller, { poolAddress: h.scenario.pool, ...body });
  const positions = (wallet: string) =>
    decodePositions(h.sandbox.ledger.view(h.scenario.pool, 'get_positions', [blendScVal.scAddress(wallet)]));

  beforeAll(async () => {
    h = await startTxbHarness({ redisDb: 13 });
    const { xlm, pool, oracle } = h.scenario;
    // 10,000 XLM at 0.30 x 0.75 against 1,900 USDC / 0.95: health factor 1.125. Holding: the borrowed USDC; none;
    // none but 5,000 XLM of tokens.
    repays = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT });
    supplies = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
    h.sandbox.control.setup.mint(xlm, supplies.address, 5_000n * UNIT);
    penniless = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
    noAuction = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT });
    unwinds = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, extraUsdc: 50n * UNIT });
    // XLM 0.30 -> 0.26: health factor 0.975, and a liquidator starts an auction against three of them.
    h.sandbox.control.setup.setPrice(oracle, xlm, (DEMO_PRICES.xlm * 26n) / 30n);
    // The sandbox's liquidator sends one transaction a ledger (one per source account waits in the queue).
    for (const wallet of [repays, supplies, penniless, unwinds]) {
      h.sandbox.control.liquidator.startAuction(pool, wallet.address);
      h.sandbox.ledger.closeLedger();
      if (!hasAuction(h.sandbox, pool, wallet.address)) throw new Error('the auction did not start');
    }
  }, 60_000);
  afterAll(() => h?.close());

  it('repays just enough USDC to reach 1.10 and deletes the auction in one submit that lands', async () => {
    const collateralBefore = positions(repays.address).collateral.get(1);
    const caller = h.caller();
    const answer = await build({ action: 'RESCUE', walletAddress: repays.address }, caller);
    expect(answer.status).toBe(200);
    const body = answer.body as BuildResponse;
    const { fn, requests } = requestsOf(body.transaction.transactionXdr);
    expect(fn).toBe('submit');
    expect(requests.map(([type, asset]) => [type, asset])).toEqual([
      [5, h.scenario.usdc],
      [9, repays.address],
    ]);
    // By hand: debt D with D x dRate / 0.95 <= 1,950 / 1.10011: about 1,684 USDC left, about 216 repaid.
    const repaid = requests[0][2];
    expect(repaid).toBeGreaterThan(200n * UNIT);
    expect(repaid).toBeLessThan(235n * UNIT);
    expect(body.transaction.operations).toBe(2);
    expect(body.proposal.metadata).toMatchObject({
      action: 'RESCUE',
      tokenId: h.scenario.usdc,
      amount: repaid.toString(),
      rescue: {
        targetHealthFactor: 1.1,
        requests: [{ requestType: 'Repay', tokenId: h.scenario.usdc, amount: repaid.toString() }],
      },
    });
    expect(body.preview.healthFactorBefore).toBeLessThan(1);
    expect(body.preview.healthFactorAfter).toBeGreaterThanOrEqual(1.1);
    expect(body.preview.healthFactorAfter).toBeLessThan(1.102);
    expect(body.preview.riskLevelAfter).toBe('high');

    const signed = h.sign(repays, body.transaction.transactionXdr);
    const submitted = await h.call('POST', '/api/v1/txb/submit', caller, { transactionXdr: signed });
    expect(submitted.status).toBe(200);
    const proposal = await h.proposalIn(caller, repays.address, body.proposal.id, ['confirmed', 'failed']);
    expect(proposal.status).toBe('confirmed');
    expect(hasAuction(h.sandbox, h.scenario.pool, repays.address)).toBe(false);
    // The wallet keeps every bToken of its collateral.
    expect(positions(repays.address).collateral.get(1)).toBe(collateralBefore);
  });

  it('supplies collateral from the wallet when it holds none of the debt token', async () => {
    const answer = await build({ action: 'RESCUE', walletAddress: supplies.address, targetHealthFactor: 1.2 });
    expect(answer.status).toBe(200);
    const body = answer.body as BuildResponse;
    const { requests } = requestsOf(body.transaction.transactionXdr);
    expect(requests.map(([type, asset]) => [type, asset])).toEqual([
      [2, h.scenario.xlm],
      [9, supplies.address],
    ]);
    expect(requests[0][2]).toBeLessThan(5_000n * UNIT);
    expect(body.preview.healthFactorAfter).toBeGreaterThanOrEqual(1.2);
    expect(body.proposal.metadata.rescue).toMatchObject({ targetHealthFactor: 1.2 });
  });

  it('is 422 RESCUE_NOT_POSSIBLE when the wallet holds nothing that reaches health', async () => {
    const answer = await build({ action: 'RESCUE', walletAddress: penniless.address });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ success: false, code: 'RESCUE_NOT_POSSIBLE' });
    expect(answer.body.error).toMatch(/short of 1\.1/);
  });

  it('is 404 AUCTION_NOT_FOUND when no auction runs against the wallet, even under water', async () => {
    const answer = await build({ action: 'RESCUE', walletAddress: noAuction.address });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, code: 'AUCTION_NOT_FOUND' });
  });

  it('an UNWIND during an auction deletes it too (the pool refuses any other submit of the wallet), and lands', async () => {
    const caller = h.caller();
    const answer = await build({ action: 'UNWIND', walletAddress: unwinds.address }, caller);
    expect(answer.status).toBe(200);
    const body = answer.body as BuildResponse;
    expect(body.proposal.metadata.route).toBe('submit');
    const { requests } = requestsOf(body.transaction.transactionXdr);
    expect(requests.at(-1)).toEqual([9, unwinds.address, 0n]);
    expect(body.transaction.operations).toBe(requests.length);
    const signed = h.sign(unwinds, body.transaction.transactionXdr);
    expect((await h.call('POST', '/api/v1/txb/submit', caller, { transactionXdr: signed })).status).toBe(200);
    expect((await h.proposalIn(caller, unwinds.address, body.proposal.id, ['confirmed', 'failed'])).status).toBe(
      'confirmed',
    );
    expect(hasAuction(h.sandbox, h.scenario.pool, unwinds.address)).toBe(false);
    expect(positions(unwinds.address).liabilities.size).toBe(0);
  });

  it('is 400 naming amount when one is given', async () => {
    const answer = await build({ action: 'RESCUE', walletAddress: noAuction.address, amount: '5' });
    expect(answer.status).toBe(400);
    expect(answer.body.details.map((d: { field: string }) => d.field)).toEqual(['amount']);
  });

  describe("a pool with a minimum collateral (Blend's MinCollateralNotMet)", () => {
    // $2,000 of effective collateral asked of a position with debt (7-decimal oracle); no minimum before.
    const minimum = 2_000n * UNIT;
    let supplier: LedgerWallet;
    let short: LedgerWallet;
    const setMinimum = (value: bigint) => h.sandbox.control.setup.setMinCollateral(h.scenario.pool, value);

    beforeAll(() => {
      const { xlm, pool, oracle } = h.scenario;
      // At XLM 0.26: 10,000 XLM ($1,950 effective) against 1,500 USDC. Then XLM 0.20: $1,500 effective, health
      // factor about 0.95, and an auction against both. The supplier holds 10,000 XLM more and no USDC; the short
      // one holds the borrowed USDC, not enough to repay every debt with its interest.
      supplier = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_500n * UNIT, keepUsdc: 0n });
      h.sandbox.control.setup.mint(xlm, supplier.address, 10_000n * UNIT);
      short = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_500n * UNIT });
      h.sandbox.control.setup.setPrice(oracle, xlm, (DEMO_PRICES.xlm * 20n) / 30n);
      for (const wallet of [supplier, short]) {
        h.sandbox.control.liquidator.startAuction(pool, wallet.address);
        h.sandbox.ledger.closeLedger();
        if (!hasAuction(h.sandbox, pool, wallet.address)) throw new Error('the auction did not start');
      }
      setMinimum(minimum);
      h.sandbox.ledger.closeLedger();
    });
    afterAll(() => setMinimum(0n));

    it('supplies collateral up to the minimum, not only to the target, and the rescue lands', async () => {
      const caller = h.caller();
      const answer = await build({ action: 'RESCUE', walletAddress: supplier.address }, caller);
      expect(answer.status).toBe(200);
      const body = answer.body as BuildResponse;
      const { requests } = requestsOf(body.transaction.transactionXdr);
      expect(requests.map(([type, asset]) => [type, asset])).toEqual([
        [2, h.scenario.xlm],
        [9, supplier.address],
      ]);
      // The target alone (1.10 against about $1,580 of effective debt) needs about 1,580 XLM at $0.20 x 0.75;
      // the minimum needs $500 more of effective collateral: about 3,334 XLM.
      expect(requests[0][2]).toBeGreaterThan(3_300n * UNIT);
      expect(requests[0][2]).toBeLessThan(3_400n * UNIT);
      const signed = h.sign(supplier, body.transaction.transactionXdr);
      expect((await h.call('POST', '/api/v1/txb/submit', caller, { transactionXdr: signed })).status).toBe(200);
      const proposal = await h.proposalIn(caller, supplier.address, body.proposal.id, ['confirmed', 'failed']);
      expect(proposal.status).toBe('confirmed');
      expect(hasAuction(h.sandbox, h.scenario.pool, supplier.address)).toBe(false);
    });

    it('is 422 RESCUE_NOT_POSSIBLE naming the minimum when health is reachable but the minimum is not', async () => {
      const answer = await build({ action: 'RESCUE', walletAddress: short.address });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ success: false, code: 'RESCUE_NOT_POSSIBLE' });
      expect(answer.body.error).toMatch(/requires 2000\.00 of collateral value/);
    });
  });
});
