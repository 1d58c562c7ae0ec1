/**
 * Two txb processes sharing Redis, each behind its own gateway: a proposal built through one is seen through the
 * other, and when the process that submitted a transaction is killed (SIGKILL, no goodbye) before the ledger takes
 * it, the other one reports it confirmed once the ledger shows it.
 */
import type { ProposalView } from '@rp/contracts';
import { type AppProcess, type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { startApp } from './support/running-apps';
import { type TxbCalls, txbCalls } from './support/txb-calls';

describe('two txb replicas', () => {
  let stack: Stack;
  let txb: TxbCalls;
  let secondGateway: AppProcess;
  let key: string;

  beforeAll(async () => {
    // Ledgers close only when the test says: the transaction is still waiting when its submitter dies.
    stack = await startStack({
      apps: ['subscription', 'txb', 'gateway'],
      roles: { txb: ['replica', 'replica'] },
      redisDb: 10,
      ledgerIntervalMs: 0,
    });
    txb = txbCalls(stack);
    secondGateway = await startApp('gateway', {
      SUBSCRIPTION_URL: stack.app('subscription').url,
      TXB_URL: stack.processes('txb')[1].url,
      INTERNAL_TOKEN: stack.internalToken,
    });
    key = (await stack.api.partnerKey()).apiKey;
  }, 180_000);

  afterAll(async () => {
    await secondGateway?.stop();
    await stack?.close();
  });

  const viaSecond = () => `${secondGateway.url}/api/v1`;

  async function listedBySecond(wallet: string): Promise<ProposalView[]> {
    const answer = await fetch(`${viaSecond()}/txb/proposals?wallet=${wallet}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { proposals: ProposalView[] }).proposals;
  }

  it('lets the surviving replica report the confirmation of what the killed one submitted', async () => {
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await txb.call(key, 'POST', '/txb/build', {
      action: 'REPAY',
      walletAddress: wallet.address,
      poolAddress: stack.scenario.pool,
      tokenId: stack.scenario.usdc,
    });
    expect(built.status).toBe(200);
    const id = built.body.proposal!.id;
    expect((await listedBySecond(wallet.address)).map((proposal) => proposal.id)).toEqual([id]);

    const submitted = await txb.call(key, 'POST', '/txb/submit', {
      transactionXdr: stack.sign(wallet, built.body.transaction!.transactionXdr),
    });
    expect(submitted.status).toBe(200);
    const first = stack.processes('txb')[0];
    process.kill(-(first.pid as number), 'SIGKILL');
    await first.whenExited();
    expect((await stack.ledger.getTransaction(submitted.body.txHash!)).status).toBe('NOT_FOUND');

    let seen: ProposalView | undefined;
    for (let round = 0; round < 600 && seen?.status !== 'confirmed' && seen?.status !== 'failed'; round += 1) {
      stack.sandbox.ledger.closeLedger();
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = (await listedBySecond(wallet.address)).find((proposal) => proposal.id === id);
    }
    expect(seen).toMatchObject({ status: 'confirmed', txHash: submitted.body.txHash });
    expect((await stack.ledger.getTransaction(submitted.body.txHash!)).status).toBe('SUCCESS');
    expect((await stack.position(wallet.address)).liabilities).toBe(0);
  });
});
