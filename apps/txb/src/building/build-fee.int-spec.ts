/**
 * `POST /api/v1/txb/build` prices its inclusion fee from the sandbox's `getFeeStats` (issue 18 §2): on a quiet
 * ledger the minimum and no warning; under a storm (3x the ledger's Soroban capacity at 10x the minimum fee) the
 * clearing price at `feeLevel` normal, more at high, warning NETWORK_CONGESTED; a high bid lands through the storm.
 */
import type { BuildResponse } from '@rp/contracts';
import { inclusionFeeOf } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type TxbHarness, startTxbHarness } from '../../test/txb.int-support';

/** The sandbox's per-ledger Soroban limit during the storm, and the storm: 3x the limit at 10x the minimum fee. */
const LIMIT = 5;
const STORM = { transactionsPerLedger: 15, inclusionFee: 1000, ledgers: 100_000 };

describe('build fees from getFeeStats', () => {
  let h: TxbHarness;

  beforeAll(async () => {
    h = await startTxbHarness({ redisDb: 15 });
  }, 60_000);
  afterAll(async () => {
    if (!h) return;
    await control('DELETE', '/control/congestion').catch(() => undefined);
    await h.close();
  });

  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${h.sandbox.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  }

  const repay = (walletAddress: string, extra: object = {}) => ({
    action: 'REPAY',
    walletAddress,
    poolAddress: h.scenario.pool,
    tokenId: h.scenario.usdc,
    ...extra,
  });
  const borrower = () => h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 20n * UNIT });
  const codes = (body: BuildResponse) => body.warnings.map((warning) => warning.code);

  it('refuses a feeLevel other than normal or high, naming the field', async () => {
    const answer = await h.call(
      'POST',
      '/api/v1/txb/build',
      h.caller(),
      repay(borrower().address, { feeLevel: 'urgent' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'feeLevel', message: 'must be one of normal, high' }],
    });
  });

  it('bids the minimum on a quiet ledger, at either level, without a congestion warning', async () => {
    const wallet = borrower();
    for (const feeLevel of [undefined, 'normal'] as const) {
      const answer = await h.call('POST', '/api/v1/txb/build', h.caller(), repay(wallet.address, { feeLevel }));
      expect(answer.status).toBe(200);
      const body = answer.body as BuildResponse;
      expect(body.transaction.fee).toBe('100');
      expect(inclusionFeeOf(body.transaction.transactionXdr)).toBe(100n);
      expect(codes(body)).not.toContain('NETWORK_CONGESTED');
    }
  });

  describe('under a storm', () => {
    beforeAll(async () => {
      await control('POST', '/control/ledger/limits', { maxSorobanTransactions: LIMIT });
      await control('POST', '/control/congestion', STORM);
      // Close ledgers until the storm's charged fees are what getFeeStats reports as p90 (a safety bound of rounds).
      for (let round = 0; ; round += 1) {
        if (BigInt((await h.rpc.getFeeStats()).sorobanInclusionFee.p90) >= BigInt(STORM.inclusionFee)) break;
        if (round > 200) throw new Error('the storm did not raise p90 of the inclusion fees');
        h.sandbox.ledger.closeLedger();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // txb reads getFeeStats at most once a second: let the quiet answer it read age out.
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }, 120_000);

    it('bids the clearing price at normal and more at high, warning NETWORK_CONGESTED, within the cap', async () => {
      const wallet = borrower();
      const built = async (feeLevel?: string) => {
        const answer = await h.call('POST', '/api/v1/txb/build', h.caller(), repay(wallet.address, { feeLevel }));
        expect(answer.status).toBe(200);
        const body = answer.body as BuildResponse;
        expect(inclusionFeeOf(body.transaction.transactionXdr)).toBe(BigInt(body.transaction.fee ?? '0'));
        expect(codes(body)).toContain('NETWORK_CONGESTED');
        return BigInt(body.transaction.fee ?? '0');
      };
      const normal = await built(undefined);
      expect(normal).toBe(1000n);
      expect(await built('normal')).toBe(normal);
      const high = await built('high');
      expect(high).toBe(1250n);
      expect(high).toBeGreaterThan(normal);
    });

    it('a high bid is included through the storm once signed and submitted', async () => {
      const wallet = borrower();
      const caller = h.caller();
      const { built, submitted } = await h.buildAndSubmit(caller, wallet, repay(wallet.address, { feeLevel: 'high' }));
      expect(submitted.status).toBe(200);
      const sentAt = h.sandbox.ledger.latest.sequence;
      await h.proposalIn(caller, wallet.address, built.body.proposal.id, ['confirmed']);
      const included = await h.rpc.getTransaction(submitted.body.txHash);
      expect(included.status).toBe('SUCCESS');
      expect('ledger' in included && included.ledger).toBeLessThanOrEqual(sentAt + 2);
    });
  });
});
