/**
 * `POST /api/v1/txb/build` in-process against the sandbox pool and the test Redis: each action's transaction (what
 * it invokes, its source, time bounds and simulated resources), its preview and warnings, and every refusal from a
 * real situation on the ledger.
 */
import type { BuildResponse } from '@rp/contracts';
import { networkPassphrase, poolRequestsOf, readInvocation } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type TxbHarness, startTxbHarness } from '../../test/txb.int-support';

const TESTNET = networkPassphrase('ledger:testnet');

/** The function a built transaction invokes, its envelope's facts, and its requests as [type, asset, amount]. */
function invocationOf(transactionXdr: string) {
  const invocation = readInvocation(transactionXdr, TESTNET);
  if (!invocation) throw new Error('not one contract invocation');
  const requests = poolRequestsOf(invocation).requests.map((r) => [r.requestType, r.address, r.amount] as const);
  return { invocation, fn: invocation.fn, requests };
}

describe('building transactions', () => {
  let h: TxbHarness;

  beforeAll(async () => {
    h = await startTxbHarness({ redisDb: 11 });
  }, 60_000);
  afterAll(() => h?.close());

  const build = (body: object, caller = h.caller()) => h.call('POST', '/api/v1/txb/build', caller, body);
  const base = () => ({ poolAddress: h.scenario.pool });

  describe('REPAY', () => {
    it('repays the whole debt padded by the slippage, from the wallet, valid until the proposal expires', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 20n * UNIT });
      const answer = await build({
        ...base(),
        action: 'REPAY',
        walletAddress: wallet.address,
        tokenId: h.scenario.usdc,
      });
      expect(answer.status).toBe(200);
      const body = answer.body as BuildResponse;
      const { invocation, fn, requests } = invocationOf(body.transaction.transactionXdr);
      expect(fn).toBe('submit');
      expect(invocation.source).toBe(wallet.address);
      expect(body.transaction).toMatchObject({ sourceAddress: wallet.address, operations: 1 });
      expect(invocation.maxTime).toBe(Math.floor(Date.parse(body.proposal.expiresAt) / 1000));
      // The simulation's resources and fee are in: Soroban resources and more than the inclusion fee.
      expect(invocation.hasResources).toBe(true);
      expect(invocation.fee).toBeGreaterThan(100);
      const debt = BigInt(body.proposal.metadata.amount);
      expect(debt).toBeGreaterThanOrEqual(1_000n * UNIT);
      expect(requests).toEqual([[5, h.scenario.usdc, debt + (debt * 50n + 9_999n) / 10_000n]]);
      expect(body.proposal).toMatchObject({
        status: 'pending',
        metadata: { action: 'REPAY', tokenId: h.scenario.usdc },
      });
      expect(body.proposal.id).toMatch(/^txp-\d{13}-[0-9a-z]{6}$/);
      expect(body.preview).toMatchObject({
        healthFactorAfter: null,
        riskLevelAfter: 'low',
        liabilityValueUsdAfter: '0.0000000',
      });
      expect(body.preview.healthFactorBefore).toBeGreaterThan(2);
      expect(body.warnings).toEqual([]);
    });

    it('caps an amount above the debt and says so; warns when the wallet holds less than the max cost', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 2n * UNIT });
      const answer = await build({
        ...base(),
        action: 'REPAY',
        walletAddress: wallet.address,
        tokenId: h.scenario.usdc,
        amount: String(5_000n * UNIT),
      });
      expect(answer.status).toBe(200);
      expect(answer.body.warnings.map((w: { code: string }) => w.code)).toEqual([
        'INSUFFICIENT_BALANCE',
        'AMOUNT_CAPPED',
      ]);
      // What it holds still repays the whole debt today: the transaction sends it all.
      expect(invocationOf(answer.body.transaction.transactionXdr).requests[0][2]).toBe(1_002n * UNIT);
    });

    it('repays part of the debt and previews the better health factor', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT });
      const answer = await build({
        ...base(),
        action: 'REPAY',
        walletAddress: wallet.address,
        tokenId: h.scenario.usdc,
        amount: String(300n * UNIT),
        slippageBps: 0,
      });
      expect(answer.status).toBe(200);
      expect(invocationOf(answer.body.transaction.transactionXdr).requests).toEqual([
        [5, h.scenario.usdc, 300n * UNIT],
      ]);
      expect(answer.body.preview.healthFactorAfter).toBeGreaterThan(answer.body.preview.healthFactorBefore);
      expect(answer.body.preview.riskLevelAfter).toBe('medium');
    });

    it('refuses a token the wallet owes nothing in (422) and one it has no position in (404)', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const xlm = await build({ ...base(), action: 'REPAY', walletAddress: wallet.address, tokenId: h.scenario.xlm });
      expect([xlm.status, xlm.body.code]).toEqual([422, 'NO_DEBT_TO_REPAY']);
      const stranger = h.sandbox.control.setup.deployToken('OTHER');
      const none = await build({ ...base(), action: 'REPAY', walletAddress: wallet.address, tokenId: stranger });
      expect([none.status, none.body.code]).toEqual([404, 'NO_POSITION_FOUND']);
    });
  });

  describe('LIQUIDATE', () => {
    it('withdraws part of the collateral and warns of the lower health factor', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const answer = await build({
        ...base(),
        action: 'LIQUIDATE',
        walletAddress: wallet.address,
        tokenId: h.scenario.xlm,
        amount: String(1_000n * UNIT),
      });
      expect(answer.status).toBe(200);
      expect(invocationOf(answer.body.transaction.transactionXdr).requests).toEqual([
        [3, h.scenario.xlm, 1_000n * UNIT],
      ]);
      expect(answer.body.preview.healthFactorAfter).toBeLessThan(answer.body.preview.healthFactorBefore);
      expect(answer.body.warnings.map((w: { code: string }) => w.code)).toEqual(['HEALTH_FACTOR_AFTER']);
    });

    it('refuses to withdraw all collateral under a debt: the pool says InvalidHf (1205) in simulation', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const answer = await build({
        ...base(),
        action: 'LIQUIDATE',
        walletAddress: wallet.address,
        tokenId: h.scenario.xlm,
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({
        code: 'SIMULATION_FAILED',
        contractError: { code: 1205, name: 'InvalidHf' },
      });
      expect(answer.body.error).toContain('InvalidHf 1205');
    });

    it('refuses a token the wallet has no collateral in', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const answer = await build({
        ...base(),
        action: 'LIQUIDATE',
        walletAddress: wallet.address,
        tokenId: h.scenario.usdc,
      });
      expect([answer.status, answer.body.code]).toEqual([422, 'NO_COLLATERAL_TO_LIQUIDATE']);
    });
  });

  describe('UNWIND', () => {
    it('repays and withdraws everything with a plain submit when the wallet holds the repayment', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 50n * UNIT });
      const answer = await build({ ...base(), action: 'UNWIND', walletAddress: wallet.address });
      expect(answer.status).toBe(200);
      const { fn, requests } = invocationOf(answer.body.transaction.transactionXdr);
      expect(fn).toBe('submit');
      expect(requests.map(([type, asset]) => [type, asset])).toEqual([
        [5, h.scenario.usdc],
        [3, h.scenario.xlm],
      ]);
      expect(answer.body.proposal.metadata).toMatchObject({
        action: 'UNWIND',
        route: 'submit',
        tokenId: h.scenario.usdc,
      });
      expect(answer.body.preview).toMatchObject({ healthFactorAfter: null, collateralValueUsdAfter: '0.0000000' });
    });

    it('asks for the approval first, then builds the flash loan through the receiver when the wallet has no USDC', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
      const caller = h.caller();
      const { built: approval, submitted } = await h.buildAndSubmit(caller, wallet, { ...base(), action: 'UNWIND' });
      expect(approval.body.proposal.metadata).toMatchObject({ route: 'approve', tokenId: h.scenario.usdc });
      expect(approval.body.warnings[0].code).toBe('APPROVAL_REQUIRED');
      expect(invocationOf(approval.body.transaction.transactionXdr).fn).toBe('approve');
      expect(approval.body.preview.healthFactorAfter).toBe(approval.body.preview.healthFactorBefore);
      expect(submitted.status).toBe(200);
      await h.proposalIn(caller, wallet.address, approval.body.proposal.id, ['confirmed']);

      const answer = await build({ ...base(), action: 'UNWIND', walletAddress: wallet.address }, caller);
      expect(answer.status).toBe(200);
      const { fn, requests } = invocationOf(answer.body.transaction.transactionXdr);
      expect(fn).toBe('flash_loan');
      expect(requests.map(([type, asset]) => [type, asset])).toEqual([
        [5, h.scenario.usdc],
        [5, h.scenario.xlm],
        [3, h.scenario.xlm],
      ]);
      expect(answer.body.transaction.operations).toBe(4);
      expect(answer.body.proposal.metadata).toMatchObject({ route: 'flash-loan' });
      expect(answer.body.preview).toMatchObject({ healthFactorAfter: null, liabilityValueUsdAfter: '0.0000000' });
    });

    /** A borrower at health factor 1.125 holding no USDC, whose approval for a partial unwind to 1.5 has landed. */
    async function approvedForPartial(caller: ReturnType<TxbHarness['caller']>) {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
      const { built: approval } = await h.buildAndSubmit(caller, wallet, {
        ...base(),
        action: 'UNWIND',
        targetHealthFactor: 1.5,
      });
      await h.proposalIn(caller, wallet.address, approval.body.proposal.id, ['confirmed']);
      return wallet;
    }

    it('builds a partial unwind whose simulated end state has the target health factor', async () => {
      const caller = h.caller();
      const wallet = await approvedForPartial(caller);
      const answer = await build(
        { ...base(), action: 'UNWIND', walletAddress: wallet.address, targetHealthFactor: 1.5 },
        caller,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.proposal.metadata.route).toBe('flash-loan');
      expect(answer.body.preview.healthFactorAfter).toBeGreaterThanOrEqual(1.5);
      expect(answer.body.preview.healthFactorAfter).toBeLessThan(1.5 * 1.001);
      expect(answer.body.preview.riskLevelAfter).toBe('low');
    });

    it("refuses a partial unwind that would leave debt under the pool's minimum collateral, naming it", async () => {
      const caller = h.caller();
      const wallet = await approvedForPartial(caller);
      // At 1.5 about $1,570 of effective collateral is left (of $2,250); the pool now asks $2,000 of a position with debt.
      const setMinimum = (value: bigint) => h.sandbox.control.setup.setMinCollateral(h.scenario.pool, value);
      setMinimum(2_000n * UNIT);
      try {
        const body = { ...base(), action: 'UNWIND', walletAddress: wallet.address, targetHealthFactor: 1.5 };
        const answer = await build(body, caller);
        expect([answer.status, answer.body.code]).toEqual([422, 'UNWIND_NOT_POSSIBLE']);
        expect(answer.body.error).toMatch(/under the pool's minimum of 2000\.00: unwind fully/);
        // The whole position can still be closed.
        const full = await build({ ...base(), action: 'UNWIND', walletAddress: wallet.address }, caller);
        expect(full.status).toBe(200);
      } finally {
        setMinimum(0n);
      }
    });

    it('refuses a target the position already meets', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const answer = await build({
        ...base(),
        action: 'UNWIND',
        walletAddress: wallet.address,
        targetHealthFactor: 1.5,
      });
      expect([answer.status, answer.body.code]).toEqual([422, 'TARGET_ALREADY_REACHED']);
    });

    it('refuses more than 10 operations in one transaction', async () => {
      const { setup } = h.sandbox.control;
      const oracle = setup.deployOracle({ salt: 'txb-wide-oracle' });
      const pool = setup.deployPool('Wide Pool', oracle, { maxPositions: 12 });
      const tokens = Array.from({ length: 6 }, (_, i) => setup.deployToken(`W${i}`));
      const provider = h.stranger().address;
      for (const token of tokens) {
        setup.setPrice(oracle, token, 10_000_000n);
        setup.addReserve(pool, token, { cFactor: 9_000_000, lFactor: 9_000_000 });
      }
      setup.openPosition(pool, { user: provider, supply: tokens.map((asset) => ({ asset, amount: 100_000n * UNIT })) });
      const wallet = h.borrower({ xlm: 1n * UNIT, usdc: 0n });
      setup.openPosition(pool, {
        user: wallet.address,
        supplyCollateral: tokens.map((asset) => ({ asset, amount: 1_000n * UNIT })),
        borrow: tokens.slice(0, 5).map((asset) => ({ asset, amount: 100n * UNIT })),
      });
      const answer = await build({ poolAddress: pool, action: 'UNWIND', walletAddress: wallet.address });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ code: 'TOO_MANY_OPERATIONS', operations: 11 });
    });
  });

  describe('positions that are not there', () => {
    it('answers 404 NO_POSITION_FOUND for a wallet without a position in the pool', async () => {
      const wallet = h.stranger().address;
      h.sandbox.control.setup.fund(wallet, 10n * UNIT);
      const answer = await build({ ...base(), action: 'UNWIND', walletAddress: wallet });
      expect([answer.status, answer.body.code]).toEqual([404, 'NO_POSITION_FOUND']);
    });

    it('answers 404 POOL_NOT_FOUND for an address that is not a Blend pool', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      for (const poolAddress of [h.scenario.usdc, h.sandbox.control.setup.deployToken('NOTAPOOL')]) {
        const answer = await build({
          poolAddress,
          action: 'REPAY',
          walletAddress: wallet.address,
          tokenId: h.scenario.usdc,
        });
        expect([answer.status, answer.body.code]).toEqual([404, 'POOL_NOT_FOUND']);
      }
    });

    it('answers 404 ACCOUNT_NOT_FOUND for a position whose wallet has no ledger account', async () => {
      const wallet = h.stranger().address;
      h.sandbox.control.setup.openPosition(h.scenario.pool, {
        user: wallet,
        supplyCollateral: [{ asset: h.scenario.xlm, amount: 100n * UNIT }],
      });
      const answer = await build({ ...base(), action: 'LIQUIDATE', walletAddress: wallet, tokenId: h.scenario.xlm });
      expect([answer.status, answer.body.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    });
  });

  describe('the ledger and the pool as they are', () => {
    it('answers 502 LEDGER_UNAVAILABLE while the RPC fails, and stores nothing', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const caller = h.caller();
      h.sandbox.faults.add({ kind: 'http-error', count: Number.POSITIVE_INFINITY, status: 503 });
      try {
        const answer = await build({ ...base(), action: 'UNWIND', walletAddress: wallet.address }, caller);
        expect([answer.status, answer.body.code]).toEqual([502, 'LEDGER_UNAVAILABLE']);
      } finally {
        h.sandbox.faults.clear();
      }
      const listed = await h.call('GET', `/api/v1/txb/proposals?wallet=${wallet.address}`, caller);
      expect(listed.body.total).toBe(0);
    });

    it('warns that the pool is on ice, and still builds a repay (repaying is always allowed)', async () => {
      const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
      // As on the network, the change arrives in a ledger (txb reuses a pool read until the ledger moves).
      const status = (value: number) => {
        h.sandbox.control.setup.setPoolStatus(h.scenario.pool, value);
        h.sandbox.ledger.closeLedger();
      };
      status(2);
      try {
        const answer = await build({
          ...base(),
          action: 'REPAY',
          walletAddress: wallet.address,
          tokenId: h.scenario.usdc,
        });
        expect(answer.status).toBe(200);
        expect(answer.body.warnings.map((w: { code: string }) => w.code)).toEqual(['POOL_ON_ICE']);
      } finally {
        status(0);
      }
    });

    it('names each invalid field with a 400', async () => {
      const answer = await build({
        action: 'REPAY',
        walletAddress: 'GABC',
        poolAddress: h.scenario.pool,
        slippageBps: -1,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_FAILED');
      expect(answer.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'slippageBps',
        'tokenId',
        'walletAddress',
      ]);
    });
  });
});
