import { type LuaScript, type RedisClient, luaScript, runScript } from '@rp/platform';
import type { Pace } from './destination';

/**
 * Per-destination lanes in Redis, shared by every worker:
 * - a FIFO of job ids per destination: only its head is sent, so messages reach a destination in the order they
 *   were taken in, through retries and rate limits (a job finished by any path leaves the lane);
 * - pacing: the earliest time of the next send per pace key (Telegram chat/group/bot, webhook); a send takes a slot
 *   only when every key of the destination is free, otherwise the caller learns how long to wait.
 */
// Per job: KEYS lane, laned key; ARGV job id. A job is pushed to its lane once (a batch in one round trip).
const ENQUEUE = `
for i = 1, #ARGV do
  if redis.call('SET', KEYS[2 * i], '1', 'NX', 'EX', 86400) then redis.call('RPUSH', KEYS[2 * i - 1], ARGV[i]) end
  redis.call('EXPIRE', KEYS[2 * i - 1], 172800)
end
return 1`;
const TAKE_SLOT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
for i, key in ipairs(KEYS) do
  local next = tonumber(redis.call('GET', key) or '0')
  if next - now > wait then wait = next - now end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[i])
  if interval > 0 then redis.call('SET', key, now + interval, 'PX', interval + 60000) end
end
return 0`;
/**
 * Whether a job was already sent (its idempotency key, set when a send succeeded: a job retaken after its worker
 * died between the send and the completion is not sent twice), its position in the lane and, for its head (or a
 * job in no lane), the pacing slot: one round trip per try. KEYS: lane, sent key, pace keys...
 */
const TURN = `
if redis.call('EXISTS', KEYS[2]) == 1 then return {3} end
local index = redis.call('LPOS', KEYS[1], ARGV[1])
if index and index > 0 then return {1, index, redis.call('LINDEX', KEYS[1], 0)} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
for i = 3, #KEYS do
  local next = tonumber(redis.call('GET', KEYS[i]) or '0')
  if next - now > wait then wait = next - now end
end
if wait > 0 then return {2, wait} end
for i = 3, #KEYS do
  local interval = tonumber(ARGV[i - 1])
  if interval > 0 then redis.call('SET', KEYS[i], now + interval, 'PX', interval + 60000) end
end
return {0}`;
/** A sent job: its idempotency key is set and it leaves its lane, in one step. KEYS: lane, sent key. */
const SENT = `
redis.call('SET', KEYS[2], '1', 'EX', 86400)
redis.call('LREM', KEYS[1], 1, ARGV[1])
return 1`;
const HOLD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold_until = now + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local next = tonumber(redis.call('GET', key) or '0')
  if hold_until > next then redis.call('SET', key, hold_until, 'PX', tonumber(ARGV[1]) + 60000) end
end
return hold_until`;

const SCRIPTS = {
  enqueue: luaScript(ENQUEUE),
  takeSlot: luaScript(TAKE_SLOT),
  turn: luaScript(TURN),
  sent: luaScript(SENT),
  hold: luaScript(HOLD),
};

export type Turn =
  | { kind: 'go' }
  | { kind: 'behind'; position: number; head: string }
  | { kind: 'paced'; waitMs: number }
  | { kind: 'already-sent' };

/** Built once per process by the delivery module (`DestinationLanes` is injected, never constructed in a service). */
export class DestinationLanes {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private lane(key: string): string {
    return `${this.prefix}lane:${key}`;
  }

  private pace(key: string): string {
    return `${this.prefix}pace:${key}`;
  }

  async enqueue(destinationKey: string, jobId: string): Promise<void> {
    await this.enqueueMany([{ lane: destinationKey, jobId }]);
  }

  /** Each job at the end of its lane, in this order (once: a job already laned stays where it is); one round trip. */
  async enqueueMany(jobs: readonly { lane: string; jobId: string }[]): Promise<void> {
    if (jobs.length === 0) return;
    const keys = jobs.flatMap(({ lane, jobId }) => [this.lane(lane), `${this.prefix}laned:${jobId}`]);
    await this.run(
      SCRIPTS.enqueue,
      keys,
      jobs.map((job) => job.jobId),
    );
  }

  private sentKey(jobId: string): string {
    return `${this.prefix}sent:${jobId}`;
  }

  /** Lets a job be queued in its lane, and sent, again (re-drive). */
  async forget(jobId: string): Promise<void> {
    await this.redis.del(`${this.prefix}laned:${jobId}`, this.sentKey(jobId));
  }

  /** The job was delivered: never send it again, and let the next job of the lane go. */
  async sent(destinationKey: string, jobId: string): Promise<void> {
    await this.run(SCRIPTS.sent, [this.lane(destinationKey), this.sentKey(jobId)], [jobId]);
  }

  /** Whether the job may send now (then its pacing slot is taken), must wait behind others, or wait for pacing. */
  async turn(destinationKey: string, jobId: string, paces: Pace[]): Promise<Turn> {
    const keys = [this.lane(destinationKey), this.sentKey(jobId), ...paces.map((p) => this.pace(p.key))];
    const answer = (await this.run(SCRIPTS.turn, keys, [jobId, ...paces.map((p) => String(p.intervalMs))])) as [
      number,
      number?,
      string?,
    ];
    if (answer[0] === 1) return { kind: 'behind', position: Number(answer[1]), head: String(answer[2] ?? '') };
    if (answer[0] === 2) return { kind: 'paced', waitMs: Number(answer[1]) };
    if (answer[0] === 3) return { kind: 'already-sent' };
    return { kind: 'go' };
  }

  async leave(destinationKey: string, jobId: string): Promise<void> {
    await this.redis.lrem(this.lane(destinationKey), 1, jobId);
  }

  /** 0 when the slot is taken (send now), else the ms to wait before asking again. */
  async takeSlot(paces: Pace[]): Promise<number> {
    if (paces.length === 0) return 0;
    return Number(
      await this.run(
        SCRIPTS.takeSlot,
        paces.map((p) => this.pace(p.key)),
        paces.map((p) => String(p.intervalMs)),
      ),
    );
  }

  /** Nothing is sent to these pace keys for `ms` (a 429's retry-after). */
  async hold(paces: Pace[], ms: number): Promise<void> {
    if (paces.length === 0) return;
    await this.run(
      SCRIPTS.hold,
      paces.map((p) => this.pace(p.key)),
      [String(Math.ceil(ms))],
    );
  }

  private run(s: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.redis, s, keys, args);
  }
}
