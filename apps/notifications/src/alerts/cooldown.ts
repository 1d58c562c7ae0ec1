import { ALERT_COOLDOWN_SECONDS, RISK_LEVELS, type RiskLevel } from '@rp/contracts';
import type { RedisClient } from '@rp/platform';
import { luaScript, runScript } from '../redis/lua-script';

/**
 * Cooldown per (wallet, pool), shared by every replica: the key holds the level last sent and lives for that
 * level's cooldown (spec, Limits). An alert at that level or lower is held back while the key lives; a worse level
 * is sent at once and starts its own cooldown. `force` (trigger, urgent webhook) sends and restarts the cooldown.
 */
const SCRIPT = `
local current = redis.call('GET', KEYS[1])
local rank = tonumber(ARGV[1])
if ARGV[3] ~= '1' and current and tonumber(current) >= rank then return 0 end
redis.call('SET', KEYS[1], rank, 'PX', ARGV[2])
return 1`;
const COOLDOWN = luaScript(SCRIPT);

export class AlertCooldown {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  key(wallet: string, pool: string): string {
    return `${this.prefix}cooldown:${wallet}:${pool}`;
  }

  /** True when the alert may be sent now (and the cooldown is started). */
  async pass(wallet: string, pool: string, level: RiskLevel, force: boolean): Promise<boolean> {
    const args = [String(RISK_LEVELS.indexOf(level)), String(ALERT_COOLDOWN_SECONDS[level] * 1000), force ? '1' : '0'];
    return (await runScript(this.redis, COOLDOWN, [this.key(wallet, pool)], args)) === 1;
  }
}
