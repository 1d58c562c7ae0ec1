import { luaScript, runScript } from './lua-script';
import type { RedisClient } from './redis-options';

/** Takes a free lease, or renews one its holder already has. KEYS: lease; ARGV: holder, ttl ms. */
const ACQUIRE = luaScript(`
local current = redis.call('GET', KEYS[1])
if current == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
elseif current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`);
/** Gives a lease up only while its holder still has it. */
const RELEASE = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * Named leases in Redis, each with one holder and an expiry: one replica at a time does a piece of work (the
 * monitor's scheduler, txb's check of one proposal, the agent's per-wallet lock and close cooldown). A holder that
 * dies stops renewing and the lease runs out. The one lease implementation of the workspace.
 */
export class RedisLeases {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = '',
  ) {}

  /** Takes the lease when it is free, or renews it when `holder` has it; whether `holder` has it now. */
  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const ttl = String(Math.ceil(ttlMs));
    return (await runScript(this.redis, ACQUIRE, [this.prefix + name], [holder, ttl])) === 1;
  }

  /** Gives the lease up if `holder` still has it. */
  async release(name: string, holder: string): Promise<void> {
    await runScript(this.redis, RELEASE, [this.prefix + name], [holder]);
  }

  /** The current holder, if any. */
  async holder(name: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + name)) ?? undefined;
  }
}
