/**
 * The transaction builder through the gateway with API keys, as real processes on the sandbox ledger: wallets sign
 * with their own SEP-5 keys; REPAY, LIQUIDATE, UNWIND (flash loan) and a partial unwind land and the ledger shows
 * it; every refusal comes from a real situation; one key's proposals are invisible to another; an RPC off the list
 * is never called.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Stack, type StackWallet, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { Keypair, Networks, type Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { type TxbCalls, txbCalls } from './support/txb-calls';

const TTL_SECONDS = 30;

describe('the transaction builder through the gateway', () => {
  let stack: Stack;
  let txb: TxbCalls;
  let key: string;
  let stranger: { server: Server; url: string; calls: number };
  let expiring: { wallet: StackWallet; signed: string; expiresAt: number; id: string };

  beforeAll(async () => {
    const server = createServer((_req, res) => {
      stranger.calls += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stranger = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`, calls: 0 };
    stack = await startStack({
      apps: ['subscription', 'txb', 'gateway'],
      redisDb: 9,
      env: { txb: { PROPOSAL_TTL_SECONDS: String(TTL_SECONDS) } },
    });
    txb = txbCalls(stack);
    key = (await stack.api.partnerKey()).apiKey;
    // A proposal left to expire; it is submitted at the end of the suite.
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 100n * UNIT, extraUsdc: 10n * UNIT });
    const built = await build({ action: 'REPAY', walletAddress: wallet.address, tokenId: stack.scenario.usdc });
    expect(built.status).toBe(200);
    expiring = {
      wallet,
      signed: stack.sign(wallet, built.body.transaction!.transactionXdr),
      expiresAt: Date.parse(built.body.proposal!.expiresAt),
      id: built.body.proposal!.id,
    };
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    stranger?.server.close();
  });

  function build(body: object, apiKey = key) {
    return txb.call(apiKey, 'POST', '/txb/build', { poolAddress: stack.scenario.pool, ...body });
  }

  const submit = (transactionXdr: string, extra: object = {}, apiKey = key) =>
    txb.call(apiKey, 'POST', '/txb/submit', { transactionXdr, ...extra });

  /** Builds for the wallet, signs with its key, submits, and waits for the ledger's verdict. */
  async function land(wallet: StackWallet, body: object) {
    const built = await build({ walletAddress: wallet.address, ...body });
    expect(built.status).toBe(200);
    const submitted = await submit(stack.sign(wallet, built.body.transaction!.transactionXdr));
    expect(submitted.status).toBe(200);
    const proposal = await txb.proposalIn(key, wallet.address, built.body.proposal!.id, ['confirmed', 'failed']);
    expect({ status: proposal.status, failure: proposal.failure }).toEqual({ status: 'confirmed', failure: undefined });
    expect((await stack.ledger.getTransaction(submitted.body.txHash!)).status).toBe('SUCCESS');
    return built.body;
  }

  it('REPAY: the debt on the ledger is gone and the padding came back', async () => {
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 20n * UNIT });
    const before = stack.usdc(wallet.address);
    const built = await land(wallet, { action: 'REPAY', tokenId: stack.scenario.usdc });
    expect((await stack.position(wallet.address)).liabilities).toBe(0);
    const paid = before - stack.usdc(wallet.address);
    const debt = BigInt(built.proposal!.metadata.amount);
    expect(paid).toBeGreaterThanOrEqual(debt);
    expect(paid).toBeLessThan(debt + (debt * 50n) / 10_000n); // sent debt + 0.5 %, the pool kept only the debt
  });

  it('LIQUIDATE: the collateral leaves the pool for the wallet', async () => {
    const wallet = stack.borrower({ xlm: 2_000n * UNIT, usdc: 0n });
    const before = stack.xlm(wallet.address);
    await land(wallet, { action: 'LIQUIDATE', tokenId: stack.scenario.xlm });
    expect((await stack.position(wallet.address)).collateral).toBe(0);
    expect(stack.xlm(wallet.address) - before).toBeGreaterThanOrEqual(2_000n * UNIT);
  });

  it('UNWIND with no USDC: an approval, then one flash loan through the receiver closes the position', async () => {
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
    expect(stack.usdc(wallet.address)).toBe(0n);
    const approval = await land(wallet, { action: 'UNWIND' });
    expect(approval.proposal!.metadata.route).toBe('approve');
    expect(approval.warnings!.map((warning) => warning.code)).toContain('APPROVAL_REQUIRED');
    const xlmBefore = stack.xlm(wallet.address);
    const unwind = await land(wallet, { action: 'UNWIND' });
    expect(unwind.proposal!.metadata.route).toBe('flash-loan');
    expect(await stack.position(wallet.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
    // The remainder is the wallet's: the XLM that was not sold and the sale's surplus over the debt.
    expect(stack.xlm(wallet.address) - xlmBefore).toBeGreaterThan(3_000n * UNIT);
    expect(stack.usdc(wallet.address)).toBeGreaterThan(0n);
  });

  it('UNWIND to a target health factor of 1.5: the ledger ends within 1 % of it', async () => {
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
    await land(wallet, { action: 'UNWIND', targetHealthFactor: 1.5 }); // the approval
    const unwind = await land(wallet, { action: 'UNWIND', targetHealthFactor: 1.5 });
    expect(unwind.proposal!.metadata.route).toBe('flash-loan');
    const { healthFactor } = await stack.position(wallet.address);
    expect(Math.abs(Number(healthFactor) / 1e7 - 1.5)).toBeLessThan(0.015);
  });

  describe('refusals, each from a real situation', () => {
    it('400 VALIDATION_FAILED naming the field', async () => {
      const answer = await build({ action: 'REPAY', walletAddress: 'not-an-address', tokenId: stack.scenario.usdc });
      expect([answer.status, answer.body.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(answer.body.details).toEqual([{ field: 'walletAddress', message: 'must be a valid ledger G-address' }]);
    });

    it('404 NO_POSITION_FOUND, 422 NO_DEBT_TO_REPAY, 422 NO_COLLATERAL_TO_LIQUIDATE', async () => {
      const nobody = Keypair.random().publicKey();
      stack.sandbox.control.setup.fund(nobody, 10n * UNIT);
      const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const cases: [object, number, string][] = [
        [{ action: 'REPAY', walletAddress: nobody, tokenId: stack.scenario.usdc }, 404, 'NO_POSITION_FOUND'],
        [{ action: 'REPAY', walletAddress: wallet.address, tokenId: stack.scenario.xlm }, 422, 'NO_DEBT_TO_REPAY'],
        [
          { action: 'LIQUIDATE', walletAddress: wallet.address, tokenId: stack.scenario.usdc },
          422,
          'NO_COLLATERAL_TO_LIQUIDATE',
        ],
      ];
      for (const [body, status, code] of cases) {
        const answer = await build(body);
        expect([answer.status, answer.body.code]).toEqual([status, code]);
      }
    });

    it('422 SIMULATION_FAILED with the contract error: withdrawing collateral under a debt is InvalidHf 1205', async () => {
      const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      const answer = await build({ action: 'LIQUIDATE', walletAddress: wallet.address, tokenId: stack.scenario.xlm });
      expect([answer.status, answer.body.code]).toEqual([422, 'SIMULATION_FAILED']);
      expect(answer.body.contractError).toEqual({ code: 1205, name: 'InvalidHf' });
    });

    it('422 TOO_MANY_OPERATIONS for a position spread over more reserves than one transaction can close', async () => {
      const { setup } = stack.sandbox.control;
      const oracle = setup.deployOracle({ salt: 'e2e-wide-oracle' });
      const pool = setup.deployPool('E2E Wide Pool', oracle, { maxPositions: 12 });
      const tokens = Array.from({ length: 6 }, (_, i) => setup.deployToken(`E${i}`));
      for (const token of tokens) {
        setup.setPrice(oracle, token, 10_000_000n);
        setup.addReserve(pool, token, { cFactor: 9_000_000, lFactor: 9_000_000 });
      }
      setup.openPosition(pool, {
        user: Keypair.random().publicKey(),
        supply: tokens.map((asset) => ({ asset, amount: 100_000n * UNIT })),
      });
      const wallet = stack.borrower({ xlm: 1n * UNIT, usdc: 0n });
      setup.openPosition(pool, {
        user: wallet.address,
        supplyCollateral: tokens.map((asset) => ({ asset, amount: 1_000n * UNIT })),
        borrow: tokens.slice(0, 5).map((asset) => ({ asset, amount: 100n * UNIT })),
      });
      const answer = await build({ action: 'UNWIND', walletAddress: wallet.address, poolAddress: pool });
      expect([answer.status, answer.body.code, answer.body.operations]).toEqual([422, 'TOO_MANY_OPERATIONS', 11]);
    });

    it('502 LEDGER_UNAVAILABLE while the ledger RPC fails', async () => {
      const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT });
      stack.sandbox.faults.add({ kind: 'http-error', count: Number.POSITIVE_INFINITY, status: 503 });
      try {
        const answer = await build({ action: 'REPAY', walletAddress: wallet.address, tokenId: stack.scenario.usdc });
        expect([answer.status, answer.body.code]).toEqual([502, 'LEDGER_UNAVAILABLE']);
      } finally {
        stack.sandbox.faults.clear();
      }
    });

    it('400 for garbage, an unsigned envelope and one signed for another network; 422 SUBMISSION_FAILED txBadSeq', async () => {
      const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 20n * UNIT });
      const first = await build({
        action: 'REPAY',
        walletAddress: wallet.address,
        tokenId: stack.scenario.usdc,
        amount: '10000000',
      });
      const second = await build({
        action: 'REPAY',
        walletAddress: wallet.address,
        tokenId: stack.scenario.usdc,
        amount: '20000000',
      });
      const unsigned = second.body.transaction!.transactionXdr;
      const forPubnet = TransactionBuilder.fromXDR(unsigned, Networks.PUBLIC) as Transaction;
      wallet.wallet.signTransaction(forPubnet);
      const refusals: [string, number, string][] = [
        [Buffer.from('garbage').toString('base64'), 400, 'VALIDATION_FAILED'],
        [unsigned, 400, 'TRANSACTION_UNSIGNED'],
        [forPubnet.toXDR(), 400, 'WRONG_NETWORK'],
      ];
      for (const [envelope, status, code] of refusals) {
        const answer = await submit(envelope);
        expect([answer.status, answer.body.code]).toEqual([status, code]);
      }
      // Both proposals use the wallet's next sequence number: once the first lands, the second never can.
      expect((await submit(stack.sign(wallet, first.body.transaction!.transactionXdr))).status).toBe(200);
      await txb.proposalIn(key, wallet.address, first.body.proposal!.id, ['confirmed']);
      const late = await submit(stack.sign(wallet, unsigned));
      expect([late.status, late.body.code, late.body.resultCode]).toEqual([422, 'SUBMISSION_FAILED', 'txBadSeq']);
    });
  });

  it("keeps each key's proposals to itself: another key neither lists nor submits them", async () => {
    const other = (await stack.api.partnerKey()).apiKey;
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await build({ action: 'REPAY', walletAddress: wallet.address, tokenId: stack.scenario.usdc });
    const mine = await txb.call(key, 'GET', `/txb/proposals?wallet=${wallet.address}`);
    expect(mine.body.proposals!.map((proposal) => proposal.id)).toContain(built.body.proposal!.id);
    const theirs = await txb.call(other, 'GET', `/txb/proposals?wallet=${wallet.address}`);
    expect([theirs.status, theirs.body.total, theirs.body.proposals]).toEqual([200, 0, []]);
    const signed = stack.sign(wallet, built.body.transaction!.transactionXdr);
    const stolen = await submit(signed, {}, other);
    expect([stolen.status, stolen.body.code]).toEqual([404, 'PROPOSAL_NOT_FOUND']);
    expect((await txb.call(key, 'GET', `/txb/proposals?wallet=${wallet.address}`)).body.proposals![0].status).toBe(
      'pending',
    );
  });

  it('refuses an rpcUrl that is not on TXB_ALLOWED_RPC_URLS without calling it', async () => {
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await build({ action: 'REPAY', walletAddress: wallet.address, tokenId: stack.scenario.usdc });
    const answer = await submit(stack.sign(wallet, built.body.transaction!.transactionXdr), { rpcUrl: stranger.url });
    expect([answer.status, answer.body.code]).toEqual([400, 'RPC_URL_NOT_ALLOWED']);
    expect(stranger.calls).toBe(0);
  });

  it('documents its four routes, from the DTOs, in the OpenAPI the gateway merges', async () => {
    const document = (await (await fetch(`${stack.app('gateway').url}/api/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    expect(
      Object.keys(document.paths)
        .filter((path) => path.startsWith('/api/v1/txb/'))
        .sort(),
    ).toEqual(['/api/v1/txb/build', '/api/v1/txb/proposals', '/api/v1/txb/status', '/api/v1/txb/submit']);
    const build = document.components.schemas['BuildTransactionRequest'];
    expect(build.required).toEqual(['action', 'walletAddress', 'poolAddress']);
    expect(Object.keys(build.properties ?? {})).toEqual(
      expect.arrayContaining(['tokenId', 'amount', 'slippageBps', 'targetHealthFactor']),
    );
    expect(document.components.schemas['SubmitTransactionRequest'].required).toEqual(['transactionXdr']);
  });

  it('answers /txb/status without a key', async () => {
    const answer = await fetch(`${stack.api.url}/txb/status`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toEqual({
      success: true,
      service: 'txb',
      status: 'ok',
      proposalsInMemory: expect.any(Number),
      timestamp: expect.any(String),
    });
    expect(body['proposalsInMemory']).toBeGreaterThan(0);
  });

  it('410 PROPOSAL_EXPIRED for a proposal submitted after its lifetime', async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiring.expiresAt - Date.now() + 100)));
    const answer = await submit(expiring.signed);
    expect([answer.status, answer.body.code]).toEqual([410, 'PROPOSAL_EXPIRED']);
    const listed = await txb.call(key, 'GET', `/txb/proposals?wallet=${expiring.wallet.address}`);
    expect(listed.body.proposals!.find((proposal) => proposal.id === expiring.id)?.status).toBe('failed');
  }, 60_000);
});
