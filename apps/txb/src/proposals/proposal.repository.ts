import { Injectable } from '@nestjs/common';
import { PROPOSAL_STATUSES, type ProposalStatus } from '@rp/contracts';
import { RedisClient, luaScript, runScript } from '@rp/platform';
import type { ProposalFailure, ProposalRecord } from './proposal';
import { REASSIGN_SCRIPT, TRANSITION_SCRIPT } from './proposal-scripts';

/** Terminal proposals stay readable this long (DECISIONS.md). */
export const TERMINAL_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A Redis call slower than this is given up: the caller answers 503 instead of hanging on a dead connection. */
const STORE_TIMEOUT_MS = 2000;

export const KEYS = {
  proposal: (id: string) => `txb:proposal:${id}`,
  hash: (hash: string) => `txb:hash:${hash}`,
  owner: (accountId: string, wallet: string) => `txb:owner:${accountId}:${wallet}`,
  /** Proposals not yet confirmed or failed, scored by expiry. */
  live: 'txb:live',
  /** Work list of the tracker: proposals whose transaction may be on its way, scored by next check time. */
  tracking: 'txb:tracking',
  lease: (id: string) => `txb:lease:${id}`,
} as const;

/** Redis did not answer in time (or at all). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

export type TrackingChange = { kind: 'keep' } | { kind: 'remove' } | { kind: 'at'; at: number };

export interface TransitionRequest {
  id: string;
  from: readonly ProposalStatus[];
  to: ProposalStatus;
  now: number;
  /** Fields to set with the new status. */
  patch?: Partial<Omit<ProposalRecord, 'id' | 'status'>>;
  tracking?: TrackingChange;
  /** The transaction hash, when the caller has the record (its index key expires with a terminal proposal). */
  hash?: string;
}

export type TransitionResult =
  | { applied: true; previous: ProposalStatus }
  | { applied: false; current?: ProposalStatus };

const TRANSITION = luaScript(TRANSITION_SCRIPT);
const JSON_FIELDS = new Set(['transaction', 'metadata', 'failure', 'rejection']);
const NUMBER_FIELDS = new Set([
  'createdAt',
  'expiresAt',
  'updatedAt',
  'submittedAt',
  'lastSentAt',
  'rejectedAt',
  'ledger',
]);

/**
 * Proposals in Redis, so every replica sees the same ones: a hash per proposal, an index from transaction hash to
 * proposal, a per-account-and-wallet list, the set of live proposals and the tracker's work list. A live proposal
 * expires from Redis 24 hours after its own expiry; a terminal one 24 hours after it ended.
 */
@Injectable()
export class ProposalRepository {
  constructor(private readonly redis: RedisClient) {}

  async create(record: ProposalRecord): Promise<void> {
    const keep = record.expiresAt - record.createdAt + TERMINAL_RETENTION_MS;
    const owner = KEYS.owner(record.accountId, record.walletAddress);
    await this.within(
      this.redis
        .multi()
        .hset(KEYS.proposal(record.id), encode(record))
        .pexpire(KEYS.proposal(record.id), keep)
        .set(KEYS.hash(record.hash), record.id, 'PX', keep)
        .zadd(owner, record.createdAt, record.id)
        .pexpire(owner, keep)
        .zadd(KEYS.live, record.expiresAt, record.id)
        .exec(),
    );
  }

  async get(id: string): Promise<ProposalRecord | undefined> {
    return decode(await this.within(this.redis.hgetall(KEYS.proposal(id))));
  }

  async findByHash(hash: string): Promise<ProposalRecord | undefined> {
    const id = await this.within(this.redis.get(KEYS.hash(hash)));
    return id ? this.get(id) : undefined;
  }

  /** The account's proposals for a wallet, newest first; ids whose proposal has expired from Redis are dropped. */
  async listFor(accountId: string, wallet: string): Promise<ProposalRecord[]> {
    const owner = KEYS.owner(accountId, wallet);
    const ids = await this.within(this.redis.zrevrange(owner, 0, 499));
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(KEYS.proposal(id));
    const answers = (await this.within(pipeline.exec())) ?? [];
    const records: ProposalRecord[] = [];
    const gone: string[] = [];
    answers.forEach(([error, fields], i) => {
      const record = error ? undefined : decode(fields as Record<string, string>);
      if (record) records.push(record);
      else if (!error) gone.push(ids[i]);
    });
    if (gone.length > 0) await this.within(this.redis.zrem(owner, ...gone));
    return records;
  }

  /** Proposals not yet confirmed or failed whose lifetime has not run out. */
  countLive(now: number): Promise<number> {
    return this.within(this.redis.zcount(KEYS.live, now, '+inf'));
  }

  /** Live proposals whose lifetime ran out (oldest first). */
  expiredLive(now: number, limit: number): Promise<string[]> {
    return this.within(this.redis.zrangebyscore(KEYS.live, '-inf', now, 'LIMIT', 0, limit));
  }

  /** Moves a proposal to `to` if it is in one of `from`, atomically, with the fields and tracking change given. */
  async transition(request: TransitionRequest): Promise<TransitionResult> {
    const terminal = request.to === 'confirmed' || request.to === 'failed';
    const hash = request.hash ?? (terminal ? ((await this.get(request.id))?.hash ?? '') : '');
    const tracking = request.tracking ?? { kind: 'keep' };
    const keys = [KEYS.proposal(request.id), KEYS.live, KEYS.tracking, KEYS.hash(hash)];
    const args = [
      request.id,
      request.to,
      request.from.join(' '),
      String(request.now),
      String(TERMINAL_RETENTION_MS),
      tracking.kind === 'keep' ? '' : tracking.kind === 'remove' ? 'remove' : String(tracking.at),
      ...Object.entries(encode(request.patch ?? {})).flat(),
    ];
    const reply = await this.within(this.script(keys, args));
    const [applied, status] = reply as [number, string];
    if (applied === 1) return { applied: true, previous: status as ProposalStatus };
    return { applied: false, current: isStatus(status) ? status : undefined };
  }

  /**
   * Proposals whose owner is a bare key id (built before accounts existed, ADR 015): every account has a kind
   * before a colon (`wallet:`, `partner:`), a key id has none.
   */
  async ownedByKeyIds(): Promise<{ id: string; keyId: string; walletAddress: string; createdAt: number }[]> {
    const found: { id: string; keyId: string; walletAddress: string; createdAt: number }[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.within(this.redis.scan(cursor, 'MATCH', KEYS.proposal('*'), 'COUNT', 500));
      cursor = next;
      const pipeline = this.redis.pipeline();
      for (const key of keys) pipeline.hmget(key, 'id', 'accountId', 'walletAddress', 'createdAt');
      const answers = keys.length > 0 ? ((await this.within(pipeline.exec())) ?? []) : [];
      for (const [error, fields] of answers) {
        const [id, owner, walletAddress, createdAt] = (error ? [] : fields) as (string | null)[];
        if (id && owner && walletAddress && !owner.includes(':')) {
          found.push({ id, keyId: owner, walletAddress, createdAt: Number(createdAt) });
        }
      }
    } while (cursor !== '0');
    return found;
  }

  /** Moves a proposal from one owner to another if it still has the first; false when it did not. */
  async reassign(
    proposal: { id: string; walletAddress: string; createdAt: number },
    from: string,
    to: string,
  ): Promise<boolean> {
    const keys = [
      KEYS.proposal(proposal.id),
      KEYS.owner(from, proposal.walletAddress),
      KEYS.owner(to, proposal.walletAddress),
    ];
    const args = [proposal.id, from, to, String(proposal.createdAt)];
    return (await this.within(this.redis.eval(REASSIGN_SCRIPT, keys.length, ...keys, ...args))) === 1;
  }

  /** Marks a pending proposal failed because it expired unsigned. */
  expire(id: string, now: number): Promise<TransitionResult> {
    const failure: ProposalFailure = { reason: 'expired', resultCode: 'txTooLate' };
    return this.transition({ id, from: ['pending'], to: 'failed', now, patch: { failure } });
  }

  private script(keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.redis, TRANSITION, keys, args);
  }

  private async within<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new StoreUnavailableError(`Redis did not answer within ${STORE_TIMEOUT_MS} ms`)),
            STORE_TIMEOUT_MS,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const isStatus = (value: string): value is ProposalStatus => (PROPOSAL_STATUSES as readonly string[]).includes(value);

function encode(fields: Partial<ProposalRecord>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[name] = JSON_FIELDS.has(name) ? JSON.stringify(value) : String(value);
  }
  return out;
}

function decode(fields: Record<string, string>): ProposalRecord | undefined {
  if (!fields['id'] || !fields['status'] || !isStatus(fields['status'])) return undefined;
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (JSON_FIELDS.has(name)) record[name] = JSON.parse(value) as unknown;
    else if (NUMBER_FIELDS.has(name)) record[name] = Number(value);
    else record[name] = value;
  }
  return record as unknown as ProposalRecord;
}
