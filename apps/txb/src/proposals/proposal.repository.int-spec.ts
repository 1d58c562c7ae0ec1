/** Proposals in the test Redis: what every replica sees, transitions that cannot both win, how long things stay. */
import { randomUUID } from 'node:crypto';
import { type RedisClient, closeRedisConnection, createRedisConnection } from '@rp/platform';
import { redisDatabase } from '../../test/txb.int-support';
import { type ProposalRecord, newProposalId } from './proposal';
import { KEYS, ProposalRepository, TERMINAL_RETENTION_MS } from './proposal.repository';

describe('ProposalRepository', () => {
  let redis: RedisClient;
  let proposals: ProposalRepository;

  beforeAll(() => {
    const url = new URL(redisDatabase(14));
    redis = createRedisConnection(
      { url: url.toString(), host: url.hostname, port: Number(url.port), db: 14 },
      'txb-repository-test',
    );
    proposals = new ProposalRepository(redis);
  });
  afterAll(() => closeRedisConnection(redis));

  function record(fields: Partial<ProposalRecord> = {}): ProposalRecord {
    const createdAt = Date.now();
    return {
      id: newProposalId(createdAt),
      accountId: randomUUID(),
      walletAddress: 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6',
      action: 'REPAY',
      status: 'pending',
      createdAt,
      expiresAt: createdAt + 300_000,
      updatedAt: createdAt,
      hash: randomUUID().replace(/-/g, '').padEnd(64, '0'),
      transaction: {
        transactionXdr: 'AAAA',
        sourceAddress: 'G',
        operations: 1,
        createdAt: new Date(createdAt).toISOString(),
      },
      metadata: { poolAddress: 'CPOOL', tokenId: 'CTOKEN', amount: '1000', action: 'REPAY' },
      ...fields,
    };
  }

  it('finds a proposal by id and by transaction hash, as it was stored', async () => {
    const stored = record();
    await proposals.create(stored);
    expect(await proposals.get(stored.id)).toEqual(stored);
    expect(await proposals.findByHash(stored.hash)).toEqual(stored);
    expect(await proposals.findByHash('0'.repeat(64))).toBeUndefined();
  });

  it("lists an account's proposals for a wallet, newest first, and no other account's", async () => {
    const older = record();
    const newer = record({
      accountId: older.accountId,
      createdAt: older.createdAt + 5,
      id: newProposalId(older.createdAt + 5),
    });
    const someoneElse = record({ walletAddress: older.walletAddress });
    for (const proposal of [older, newer, someoneElse]) await proposals.create(proposal);
    expect((await proposals.listFor(older.accountId, older.walletAddress)).map((p) => p.id)).toEqual([
      newer.id,
      older.id,
    ]);
    expect((await proposals.listFor(someoneElse.accountId, older.walletAddress)).map((p) => p.id)).toEqual([
      someoneElse.id,
    ]);
    expect(await proposals.listFor(randomUUID(), older.walletAddress)).toEqual([]);
  });

  it('lets exactly one of two racing transitions win', async () => {
    const stored = record();
    await proposals.create(stored);
    const now = Date.now();
    const results = await Promise.all([
      proposals.transition({ id: stored.id, from: ['pending'], to: 'signed', now, patch: { signedXdr: 'X' } }),
      proposals.transition({
        id: stored.id,
        from: ['pending'],
        to: 'failed',
        now,
        patch: { failure: { reason: 'expired' } },
      }),
    ]);
    expect(results.filter((result) => result.applied)).toHaveLength(1);
    const loser = results.find((result) => !result.applied);
    expect(loser).toEqual({ applied: false, current: (await proposals.get(stored.id))?.status });
  });

  it('refuses a transition from a state it does not allow, and keeps the proposal as it was', async () => {
    const stored = record();
    await proposals.create(stored);
    const result = await proposals.transition({ id: stored.id, from: ['submitted'], to: 'confirmed', now: Date.now() });
    expect(result).toEqual({ applied: false, current: 'pending' });
    expect(await proposals.get(stored.id)).toEqual(stored);
  });

  it('keeps a live proposal until 24 h after its expiry and an ended one 24 h after it ended', async () => {
    const stored = record();
    await proposals.create(stored);
    const liveTtl = await redis.pttl(KEYS.proposal(stored.id));
    expect(liveTtl).toBeGreaterThan(TERMINAL_RETENTION_MS);
    expect(liveTtl).toBeLessThanOrEqual(TERMINAL_RETENTION_MS + 300_000);
    const before = await proposals.countLive(Date.now());
    await proposals.transition({
      id: stored.id,
      from: ['pending'],
      to: 'signed',
      now: Date.now(),
      tracking: { kind: 'at', at: 1 },
    });
    expect(await redis.zscore(KEYS.tracking, stored.id)).toBe('1');
    await proposals.transition({
      id: stored.id,
      from: ['signed'],
      to: 'confirmed',
      now: Date.now(),
      patch: { ledger: 7 },
    });
    for (const key of [KEYS.proposal(stored.id), KEYS.hash(stored.hash)]) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(TERMINAL_RETENTION_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(TERMINAL_RETENTION_MS);
    }
    expect(await redis.zscore(KEYS.tracking, stored.id)).toBeNull();
    expect(await redis.zscore(KEYS.live, stored.id)).toBeNull();
    expect(await proposals.countLive(Date.now())).toBe(before - 1);
    expect(await proposals.get(stored.id)).toMatchObject({ status: 'confirmed', ledger: 7 });
  });

  it('expires a pending proposal, but not one that was signed (it may be on its way)', async () => {
    const pending = record();
    const signed = record();
    for (const proposal of [pending, signed]) await proposals.create(proposal);
    await proposals.transition({ id: signed.id, from: ['pending'], to: 'signed', now: Date.now() });
    expect((await proposals.expire(pending.id, Date.now())).applied).toBe(true);
    expect((await proposals.expire(signed.id, Date.now())).applied).toBe(false);
    expect(await proposals.get(pending.id)).toMatchObject({ status: 'failed', failure: { reason: 'expired' } });
  });

  it('drops from the list the proposals Redis has forgotten', async () => {
    const stored = record();
    await proposals.create(stored);
    await redis.del(KEYS.proposal(stored.id));
    expect(await proposals.listFor(stored.accountId, stored.walletAddress)).toEqual([]);
    expect(await redis.zscore(KEYS.owner(stored.accountId, stored.walletAddress), stored.id)).toBeNull();
  });
});
