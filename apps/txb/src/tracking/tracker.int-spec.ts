/**
 * The tracker against the sandbox and the test Redis, in the situations a replica's death or a lost answer leaves
 * behind. Each situation is set up with txb's own repository, as the dead replica would have left it, and the
 * ledger is then the only judge of the outcome.
 */
import type { CallerIdentity } from '@rp/contracts';
import { type LedgerWallet, networkPassphrase, parseEnvelope } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type TxbHarness, startTxbHarness } from '../../test/txb.int-support';
import { KEYS, ProposalRepository } from '../proposals/proposal.repository';
import { RedisClient } from '@rp/platform';
import { Tracker } from './tracker';

describe('following transactions to the ledger', () => {
  let h: TxbHarness;
  let proposals: ProposalRepository;

  beforeAll(async () => {
    h = await startTxbHarness({ redisDb: 13 });
    proposals = h.app.get(ProposalRepository);
  }, 60_000);
  afterAll(() => h?.close());

  /** A built REPAY and its signed envelope; nothing is sent. */
  async function signedRepay(caller: CallerIdentity, wallet: LedgerWallet) {
    const built = await h.call('POST', '/api/v1/txb/build', caller, {
      action: 'REPAY',
      walletAddress: wallet.address,
      poolAddress: h.scenario.pool,
      tokenId: h.scenario.usdc,
    });
    expect(built.status).toBe(200);
    const signed = h.sign(wallet, built.body.transaction.transactionXdr);
    const parsed = parseEnvelope(signed, networkPassphrase('ledger:testnet'));
    if (!parsed.ok) throw new Error('not an envelope');
    return { id: built.body.proposal.id as string, signed, hash: parsed.hash };
  }

  /** What `submit` records before it sends: the signed copy, on the tracker's work list (due now). */
  async function recordSigned(id: string, signed: string, hash: string): Promise<void> {
    const now = Date.now();
    const moved = await proposals.transition({
      id,
      from: ['pending'],
      to: 'signed',
      now,
      patch: { signedXdr: signed, txHash: hash },
      tracking: { kind: 'at', at: now },
    });
    expect(moved.applied).toBe(true);
  }

  const borrower = () => h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });

  it('confirms a transaction whose submitter died right after sending it', async () => {
    const caller = h.caller();
    const wallet = borrower();
    const { id, signed, hash } = await signedRepay(caller, wallet);
    // Recorded and sent (in whichever order: the tracker must not care); the replica dies before recording the send.
    expect(h.sandbox.ledger.submit(signed).status).toBe('PENDING');
    await recordSigned(id, signed, hash);
    const done = await h.proposalIn(caller, wallet.address, id, ['confirmed', 'failed']);
    expect(done).toMatchObject({ status: 'confirmed', txHash: hash });
    expect((await h.rpc.getTransaction(hash)).status).toBe('SUCCESS');
  });

  it('sends a transaction whose submitter died before sending it, and confirms it', async () => {
    const caller = h.caller();
    const wallet = borrower();
    const { id, signed, hash } = await signedRepay(caller, wallet);
    await recordSigned(id, signed, hash);
    const done = await h.proposalIn(caller, wallet.address, id, ['confirmed', 'failed']);
    expect(done.status).toBe('confirmed');
    expect((await h.rpc.getTransaction(hash)).status).toBe('SUCCESS');
  });

  it('leaves a proposal to the replica holding its lease, and takes it over once the lease is gone', async () => {
    const caller = h.caller();
    const wallet = borrower();
    const { id, signed, hash } = await signedRepay(caller, wallet);
    const redis = h.app.get(RedisClient);
    // Another replica holds the lease (and then dies holding it), having recorded and sent the transaction.
    await redis.set(KEYS.lease(id), 'a-replica-that-died', 'PX', 60_000);
    await recordSigned(id, signed, hash);
    expect(h.sandbox.ledger.submit(signed).status).toBe('PENDING');
    h.sandbox.ledger.closeLedger();
    expect((await h.rpc.getTransaction(hash)).status).toBe('SUCCESS');
    await h.app.get(Tracker).tick();
    expect((await proposals.get(id))?.status).toBe('signed');
    await redis.del(KEYS.lease(id)); // its lease runs out
    const done = await h.proposalIn(caller, wallet.address, id, ['confirmed', 'failed']);
    expect(done.status).toBe('confirmed');
  });

  it('sends again a transaction the network accepted and then dropped', async () => {
    const caller = h.caller();
    const wallet = borrower();
    const { id, signed } = await signedRepay(caller, wallet);
    h.sandbox.faults.add({ kind: 'drop', count: 1 });
    expect((await h.call('POST', '/api/v1/txb/submit', caller, { transactionXdr: signed })).status).toBe(200);
    h.sandbox.ledger.closeLedger();
    expect((await proposals.get(id))?.status).toBe('submitted');
    // The tracker sends it again once the ledger has not shown it for a while (15 s): 250 rounds of 100 ms.
    const done = await h.proposalIn(caller, wallet.address, id, ['confirmed', 'failed'], 400);
    expect(done.status).toBe('confirmed');
  }, 60_000);

  it('reports failed, never confirmed, a transaction the ledger failed, naming the contract error', async () => {
    const caller = h.caller();
    const wallet = borrower();
    const { id, signed } = await signedRepay(caller, wallet);
    expect((await h.call('POST', '/api/v1/txb/submit', caller, { transactionXdr: signed })).status).toBe(200);
    // Before the ledger closes, the wallet's USDC leaves it: the repay's transfer fails when applied.
    const { setup } = h.sandbox.control;
    setup.transfer(
      h.scenario.usdc,
      wallet.address,
      h.scenario.paymentReceiver,
      setup.balance(h.scenario.usdc, wallet.address),
    );
    const done = await h.proposalIn(caller, wallet.address, id, ['confirmed', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.failure).toMatchObject({ reason: 'failed', resultCode: 'txFailed' });
    expect(done.ledger).toBeGreaterThan(0);
  });
});
