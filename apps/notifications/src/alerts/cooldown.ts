import { ALERT_COOLDOWN_SECONDS, RISK_LEVELS, type RiskLevel } from '@rp/contracts';
import { type RedisClient, luaScript, runScript } from '@rp/platform';

/**
 * Cooldown per (wallet, pool), shared by every replica: the key holds the level last sent and the alert that sent
 * it, and lives for that level's cooldown (spec, Limits). An alert at that level or lower is held back while the key
 * lives; a worse level is sent at once and starts its own cooldown. `force` (trigger, urgent webhook) sends and
 * restarts the cooldown. The alert that started the cooldown passes again: taken in a second time because the
 * process died between the cooldown and the queue (a monitor batch job run again, a webhook sender retrying), it is
 * queued under the same deterministic job ids, so it is sent once and never lost.
 */
const SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, ':', 1, true)
  if sep and string.sub(current, sep + 1) == ARGV[4] then return 1 end
  local held = tonumber(sep and string.sub(current, 1, sep - 1) or current)
  if ARGV[3] ~= '1' and held >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[4], 'PX', ARGV[2])
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

  /** True when the alert may be sent now (and the cooldown is started), or is the one that started it. */
  async pass(wallet: string, pool: string, level: RiskLevel, force: boolean, alertId: string): Promise<boolean> {
    const args = [
      String(RISK_LEVELS.indexOf(level)),
      String(ALERT_COOLDOWN_SECONDS[level] * 1000),
      force ? '1' : '0',
      alertId,
    ];
    return (await runScript(this.redis, COOLDOWN, [this.key(wallet, pool)], args)) === 1;
  }
}
