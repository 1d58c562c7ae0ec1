import { type LuaScript, type RedisClient, luaScript, runScript } from '@rp/platform';
import type { Pace } from './destination';

/**
 * Per-destination lanes in Redis, shared by every worker:
 * - a FIFO of job ids per destination: only its head is sent, so messages reach a destination in the order they
 *   were taken in, through retries and rate limits (a job finished by any path leaves the lane);
 * - pacing: the earliest time of the next send per pace key (Telegram chat/group/bot, webhook); a send takes a slot
 *   only when every key of the destination is free, otherwise the caller learns how long to wait.
 */
// Per job: KEYS lane, laned key; ARGV job id, the BullMQ job that carries it. A job is pushed to its lane once (a
// batch in one round trip); its laned key names the job carrying it (itself, or its alert's fan-out job).
const ENQUEUE = `
for i = 1, #KEYS / 2 do
  if redis.call('SET', KEYS[2 * i], ARGV[2 * i], 'NX', 'EX', 86400) then redis.call('RPUSH', KEYS[2 * i - 1], ARGV[2 * i - 1]) end
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
 * For each job: whether it was already sent (its idempotency key, set when a send succeeded: a job retaken after its
 * worker died between the send and the completion is not sent twice), its position in the lane and, for its head
 * (or a job in no lane), the pacing slot; any number of jobs in one round trip. Per job: KEYS lane, sent key, its
 * pace keys; ARGV job id, pace count, the paces' intervals. Answers {0} go, {1, position, head}, {2, wait}, {3} sent.
 */
const TURN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local answers = {}
local a, k = 1, 1
while a <= #ARGV do
  local id, paces = ARGV[a], tonumber(ARGV[a + 1])
  local lane, sent = KEYS[k], KEYS[k + 1]
  local answer = nil
  if redis.call('EXISTS', sent) == 1 then answer = {3} end
  if not answer then
    local index = redis.call('LPOS', lane, id)
    if index and index > 0 then answer = {1, index, redis.call('LINDEX', lane, 0)} end
  end
  if not answer then
    local wait = 0
    for j = 0, paces - 1 do
      local next = tonumber(redis.call('GET', KEYS[k + 2 + j]) or '0')
      if next - now > wait then wait = next - now end
    end
    if wait > 0 then answer = {2, wait} end
  end
  if not answer then
    for j = 0, paces - 1 do
      local interval = tonumber(ARGV[a + 2 + j])
      if interval > 0 then redis.call('SET', KEYS[k + 2 + j], now + interval, 'PX', interval + 60000) end
    end
    answer = {0}
  end
  answers[#answers + 1] = answer
  a = a + 2 + paces
  k = k + 2 + paces
end
return answers`;
/** Sent jobs: each one's idempotency key is set and it leaves its lane, in one step. Per job: KEYS lane, sent key. */
const SENT = `
for i = 1, #ARGV do
  redis.call('SET', KEYS[2 * i], '1', 'EX', 86400)
  redis.call('LREM', KEYS[2 * i - 1], 1, ARGV[i])
end
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

/** A job in its lane, as the lanes know it: its id (lane entry) and its destination's key. */
export interface LanedJob {
  lane: string;
  jobId: string;
}

/** A job asking for its turn, with its destination's pacing. */
export interface TurnRequest extends LanedJob {
  paces: readonly Pace[];
}

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

  /**
   * Each job at the end of its lane, in this order (once: a job already laned stays where it is); one round trip.
   * `carrier` is the BullMQ job that carries it when that is not its own (its alert's fan-out job).
   */
  async enqueueMany(jobs: readonly (LanedJob & { carrier?: string })[]): Promise<void> {
    if (jobs.length === 0) return;
    const keys = jobs.flatMap(({ lane, jobId }) => [this.lane(lane), this.lanedKey(jobId)]);
    await this.run(
      SCRIPTS.enqueue,
      keys,
      jobs.flatMap((job) => [job.jobId, job.carrier ?? job.jobId]),
    );
  }

  /** The BullMQ job that carried this one when it was laned (a fan-out job's id), if it was not itself. */
  async carrierOf(jobId: string): Promise<string | undefined> {
    const carrier = await this.redis.get(this.lanedKey(jobId));
    return carrier && carrier !== jobId && carrier !== '1' ? carrier : undefined;
  }

  private lanedKey(jobId: string): string {
    return `${this.prefix}laned:${jobId}`;
  }

  private sentKey(jobId: string): string {
    return `${this.prefix}sent:${jobId}`;
  }

  /** Lets a job be queued in its lane, and sent, again (re-drive). */
  async forget(jobId: string): Promise<void> {
    await this.redis.del(this.lanedKey(jobId), this.sentKey(jobId));
  }

  /** The job was delivered: never send it again, and let the next job of the lane go. */
  async sent(destinationKey: string, jobId: string): Promise<void> {
    await this.sentMany([{ lane: destinationKey, jobId }]);
  }

  /** `sent` of each job, in one round trip. */
  async sentMany(jobs: readonly LanedJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.run(
      SCRIPTS.sent,
      jobs.flatMap(({ lane, jobId }) => [this.lane(lane), this.sentKey(jobId)]),
      jobs.map((job) => job.jobId),
    );
  }

  private marks: { job: LanedJob; resolve: () => void; reject: (error: unknown) => void }[] = [];

  /**
   * `sent` of one job, in the round trip of every other job marked in this turn of the event loop (the process's
   * concurrent jobs share it): a send is marked as soon as it returns, and under load many are marked at once.
   */
  sentSoon(job: LanedJob): Promise<void> {
    return new Promise((resolve, reject) => {
      this.marks.push({ job, resolve, reject });
      if (this.marks.length === 1) setImmediate(() => this.flushMarks());
    });
  }

  private flushMarks(): void {
    const marks = this.marks;
    this.marks = [];
    this.sentMany(marks.map((mark) => mark.job)).then(
      () => marks.forEach((mark) => mark.resolve()),
      (error: unknown) => marks.forEach((mark) => mark.reject(error)),
    );
  }

  /** Whether the job may send now (then its pacing slot is taken), must wait behind others, or wait for pacing. */
  async turn(destinationKey: string, jobId: string, paces: Pace[]): Promise<Turn> {
    const [turn] = await this.turns([{ lane: destinationKey, jobId, paces }]);
    return turn;
  }

  /** `turn` of each job, in one round trip: the answers in the requests' order. */
  async turns(requests: readonly TurnRequest[]): Promise<Turn[]> {
    if (requests.length === 0) return [];
    const keys = requests.flatMap(({ lane, jobId, paces }) => [
      this.lane(lane),
      this.sentKey(jobId),
      ...paces.map((p) => this.pace(p.key)),
    ]);
    const args = requests.flatMap(({ jobId, paces }) => [
      jobId,
      String(paces.length),
      ...paces.map((p) => String(p.intervalMs)),
    ]);
    const answers = (await this.run(SCRIPTS.turn, keys, args)) as [number, number?, string?][];
    return answers.map(turnOf);
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

function turnOf(answer: [number, number?, string?]): Turn {
  if (answer[0] === 1) return { kind: 'behind', position: Number(answer[1]), head: String(answer[2] ?? '') };
  if (answer[0] === 2) return { kind: 'paced', waitMs: Number(answer[1]) };
  if (answer[0] === 3) return { kind: 'already-sent' };
  return { kind: 'go' };
}
