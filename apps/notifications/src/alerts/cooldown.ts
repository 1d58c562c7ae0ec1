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
 *
 * A whole batch of alerts is decided in one script, one round trip (ADR 028), in the batch's order: each alert sees
 * the cooldown the ones before it left, exactly as if they had been taken in one after another. The same script
 * answers the 24 h "once per alertId" of the inbound webhook: an alert whose once-key is set, or that an earlier
 * alert of the batch with the same key was taken as, is a duplicate (and touches no cooldown). The once-key is set
 * by `markTaken` after the alert's deliveries are queued, never before.
 */
// Per alert: KEYS cooldown key, once-key (the cooldown key again when the alert has none); ARGV level index,
// cooldown ms, force, alertId, triggers, mode ('c' decide the cooldown, 'd' check the once-key, both, or '-').
// The cooldown key holds `level:alertId:triggers` (triggers comma-separated, '-' for none; a value written before
// triggers were kept has no third part and counts as `low_health_factor`, the only trigger then).
// Answers per alert: 1 taken, 0 held back by the cooldown, 2 duplicate.
const SCRIPT = `
local function cooldown(key, level, ttl, force, id, triggers)
  local current = redis.call('GET', key)
  if current then
    local parts = {}
    for part in string.gmatch(current, '[^:]+') do table.insert(parts, part) end
    if parts[2] == id then return 1 end
    local sent = ',' .. (parts[3] or 'low_health_factor') .. ','
    local news = false
    for trigger in string.gmatch(triggers, '[^,]+') do
      if trigger ~= '-' and not string.find(sent, ',' .. trigger .. ',', 1, true) then news = true end
    end
    if force ~= '1' and not news and tonumber(parts[1]) >= tonumber(level) then return 0 end
  end
  redis.call('SET', key, level .. ':' .. id .. ':' .. triggers, 'PX', ttl)
  return 1
end
local taken = {}
local answers = {}
for i = 1, #KEYS / 2 do
  local a = (i - 1) * 6
  local mode = ARGV[a + 6]
  local once = KEYS[2 * i]
  local answer = 1
  if string.find(mode, 'd', 1, true) and (taken[once] or redis.call('EXISTS', once) == 1) then
    answer = 2
  else
    if string.find(mode, 'd', 1, true) then taken[once] = true end
    if string.find(mode, 'c', 1, true) then
      answer = cooldown(KEYS[2 * i - 1], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5])
    end
  end
  answers[i] = answer
end
return answers`;
export const INTAKE_DECISIONS_SCRIPT = luaScript(SCRIPT);

/** An alert 24 h ids are remembered for (the inbound webhook's `alertId`). */
export const ONCE_SECONDS = 24 * 60 * 60;

/** One alert of a batch to decide. */
export interface CooldownQuestion {
  wallet: string;
  pool: string;
  level: RiskLevel;
  alertId: string;
  triggers?: readonly string[];
  /** Skips the cooldown and restarts it (trigger, urgent, test). */
  force: boolean;
  /** Whether the cooldown is asked at all (false: no channel wants the alert; only the once-key is checked). */
  cooldown: boolean;
  /** The key that makes the alert accepted once (see `markTaken`); none: any number of times. */
  onceKey?: string;
}

/** `taken`: may be sent (the cooldown started, or it is the alert that started it); `held`: inside the cooldown. */
export type CooldownDecision = 'taken' | 'held' | 'duplicate';

const DECISIONS: Record<number, CooldownDecision> = { 0: 'held', 1: 'taken', 2: 'duplicate' };

export class AlertCooldown {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  key(wallet: string, pool: string): string {
    return `${this.prefix}cooldown:${wallet}:${pool}`;
  }

  /** Decides a whole batch, in its order, in one round trip. */
  async decide(questions: readonly CooldownQuestion[]): Promise<CooldownDecision[]> {
    if (questions.length === 0) return [];
    const keys: string[] = [];
    const args: string[] = [];
    for (const q of questions) {
      const cooldownKey = this.key(q.wallet, q.pool);
      keys.push(cooldownKey, q.onceKey ?? cooldownKey);
      const mode = `${q.cooldown ? 'c' : ''}${q.onceKey ? 'd' : ''}` || '-';
      const triggers = q.triggers && q.triggers.length > 0 ? q.triggers.join(',') : '-';
      args.push(
        String(RISK_LEVELS.indexOf(q.level)),
        String(ALERT_COOLDOWN_SECONDS[q.level] * 1000),
        q.force ? '1' : '0',
        q.alertId,
        triggers,
        mode,
      );
    }
    const answers = (await runScript(this.redis, INTAKE_DECISIONS_SCRIPT, keys, args)) as number[];
    return answers.map((answer) => DECISIONS[Number(answer)] ?? 'held');
  }

  /** The alerts of these once-keys were queued: the same ids are duplicates for 24 h (one round trip). */
  async markTaken(onceKeys: readonly string[]): Promise<void> {
    if (onceKeys.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const key of new Set(onceKeys)) pipeline.set(key, '1', 'EX', ONCE_SECONDS);
    const failed = (await pipeline.exec())?.find(([error]) => error);
    if (failed) throw failed[0];
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
    const [decision] = await this.decide([{ wallet, pool, level, force, alertId, triggers, cooldown: true }]);
    return decision === 'taken';
  }
}
