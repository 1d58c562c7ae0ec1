import { ALERT_COOLDOWN_SECONDS, RISK_LEVELS, type RiskLevel } from '@rp/contracts';
import { type RedisClient, luaScript, runScript } from '@rp/platform';

/**
 * Cooldown per (wallet, pool), shared by every replica: the key holds the level last sent and the alert that sent
 * it, and lives for that level's cooldown (spec, Limits). An alert at that level or lower is held back while the key
 * lives; a worse level is sent at once and starts its own cooldown. `force` (trigger, urgent webhook) sends and
 * restarts the cooldown. A trigger the last sent alert did not carry is news (decisions, "Risk and notifications"):
 * that alert is sent inside the cooldown too. The alert that started the cooldown passes again: taken in a second time because the
 * process died between the cooldown and the queue (a monitor batch job run again, a webhook sender retrying), it is
 * queued under the same deterministic job ids, so it is sent once and never lost.
 */
// The key holds `level:alertId:triggers` (triggers comma-separated, '-' for none; a value written before triggers
// were kept has no third part and counts as `low_health_factor`, the only trigger then).
const SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local parts = {}
  for part in string.gmatch(current, '[^:]+') do table.insert(parts, part) end
  if parts[2] == ARGV[4] then return 1 end
  local sent = ',' .. (parts[3] or 'low_health_factor') .. ','
  local news = false
  for trigger in string.gmatch(ARGV[5], '[^,]+') do
    if trigger ~= '-' and not string.find(sent, ',' .. trigger .. ',', 1, true) then news = true end
  end
  if ARGV[3] ~= '1' and not news and tonumber(parts[1]) >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[4] .. ':' .. ARGV[5], 'PX', ARGV[2])
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

  /**
   * True when the alert may be sent now (and the cooldown is started), or is the one that started it. `triggers`:
   * the alert's; one the last sent alert did not carry passes the cooldown.
   */
  async pass(
    wallet: string,
    pool: string,
    level: RiskLevel,
    force: boolean,
    alertId: string,
    triggers: readonly string[] = [],
  ): Promise<boolean> {
    const args = [
      String(RISK_LEVELS.indexOf(level)),
      String(ALERT_COOLDOWN_SECONDS[level] * 1000),
      force ? '1' : '0',
      alertId,
      triggers.length > 0 ? triggers.join(',') : '-',
    ];
    return (await runScript(this.redis, COOLDOWN, [this.key(wallet, pool)], args)) === 1;
  }
}
