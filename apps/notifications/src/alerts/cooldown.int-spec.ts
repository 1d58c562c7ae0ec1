/**
 * The cooldown on the test Redis: held back at the same level, a worse level at once, and the alert that started a
 * cooldown passing again, which is what lets an alert taken in twice (its first intake died before the queue)
 * still be queued. A batch is decided in one round trip with the answers of its alerts taken one by one.
 */
import { randomBytes } from 'node:crypto';
import { createRedisConnection, type RedisClient } from '@rp/platform';
import { AlertCooldown, type CooldownDecision, type CooldownQuestion } from './cooldown';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const POOL = 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA';

describe('alert cooldown', () => {
  let redis: RedisClient;
  let cooldown: AlertCooldown;

  beforeAll(() => {
    redis = createRedisConnection({ url: REDIS_URL, host: '127.0.0.1', port: 6379, db: 0 }, 'cooldown-test');
    cooldown = new AlertCooldown(redis, `c${randomBytes(5).toString('hex')}:`);
  });

  afterAll(async () => {
    await redis.del(cooldown.key(WALLET, POOL));
    await redis.quit();
  });

  it('holds back another alert at the same level, passes a worse one, and passes the alert that started it again', async () => {
    expect(await cooldown.pass(WALLET, POOL, 'high', false, 'alert-1')).toBe(true);
    expect(await cooldown.pass(WALLET, POOL, 'high', false, 'alert-2')).toBe(false);
    expect(await cooldown.pass(WALLET, POOL, 'medium', false, 'alert-3')).toBe(false);
    // alert-1 again: its first intake may have died between the cooldown and the queue.
    expect(await cooldown.pass(WALLET, POOL, 'high', false, 'alert-1')).toBe(true);
    expect(await cooldown.pass(WALLET, POOL, 'critical', false, 'alert-4')).toBe(true);
    expect(await cooldown.pass(WALLET, POOL, 'critical', false, 'alert-5')).toBe(false);
    expect(await cooldown.pass(WALLET, POOL, 'high', false, 'alert-1')).toBe(false);
    expect(await cooldown.pass(WALLET, POOL, 'critical', true, 'alert-6')).toBe(true);
  });

  it('passes an alert carrying a trigger the last sent one did not (news), then holds that trigger back', async () => {
    const pool = `${POOL}-news`;
    try {
      expect(await cooldown.pass(WALLET, pool, 'high', false, 'n-1', ['low_health_factor'])).toBe(true);
      expect(await cooldown.pass(WALLET, pool, 'high', false, 'n-2', ['low_health_factor'])).toBe(false);
      expect(await cooldown.pass(WALLET, pool, 'medium', false, 'n-3', ['low_health_factor', 'pool_on_ice'])).toBe(
        true,
      );
      expect(await cooldown.pass(WALLET, pool, 'medium', false, 'n-4', ['pool_on_ice'])).toBe(false);
      expect(await cooldown.pass(WALLET, pool, 'high', false, 'n-5', ['pool_frozen'])).toBe(true);
    } finally {
      await redis.del(cooldown.key(WALLET, pool));
    }
  });

  it('reads a key written before triggers were kept as one that sent low_health_factor', async () => {
    const pool = `${POOL}-legacy`;
    try {
      await redis.set(cooldown.key(WALLET, pool), '2:old-alert', 'PX', 60_000);
      expect(await cooldown.pass(WALLET, pool, 'high', false, 'l-1', ['low_health_factor'])).toBe(false);
      expect(await cooldown.pass(WALLET, pool, 'high', false, 'l-2', ['low_health_factor', 'pool_frozen'])).toBe(true);
    } finally {
      await redis.del(cooldown.key(WALLET, pool));
    }
  });

  describe('a batch', () => {
    const pool = `${POOL}-batch`;
    const once = (id: string) => `${cooldown.key(WALLET, pool)}:once:${id}`;
    /** Decides `questions` one by one, the once-keys marked after each as the intake marks them. */
    async function oneByOne(questions: CooldownQuestion[]): Promise<CooldownDecision[]> {
      const decisions: CooldownDecision[] = [];
      for (const q of questions) {
        const [decision] = await cooldown.decide([q]);
        if (decision !== 'duplicate' && q.onceKey) await cooldown.markTaken([q.onceKey]);
        decisions.push(decision);
      }
      return decisions;
    }
    /** Mixed: cooldown hits, a worse level, a new trigger, one alertId twice, once-keys twice, a forced send. */
    const mixed = (tag: string, p: string): CooldownQuestion[] => {
      const q = (alertId: string, level: CooldownQuestion['level'], extra: Partial<CooldownQuestion> = {}) => ({
        wallet: WALLET,
        pool: p,
        level,
        alertId: `${tag}-${alertId}`,
        triggers: ['low_health_factor'],
        force: false,
        cooldown: true,
        ...extra,
      });
      return [
        q('a', 'high'),
        q('b', 'high'),
        q('c', 'medium'),
        q('a', 'high'),
        q('d', 'critical'),
        q('e', 'critical'),
        q('f', 'critical', { triggers: ['low_health_factor', 'pool_frozen'] }),
        q('g', 'critical', { triggers: ['pool_frozen'] }),
        q('h', 'high', { onceKey: once(`${tag}-h`) }),
        q('h', 'high', { onceKey: once(`${tag}-h`) }),
        q('i', 'low', { cooldown: false, onceKey: once(`${tag}-i`) }),
        q('i', 'low', { cooldown: false, onceKey: once(`${tag}-i`) }),
        q('j', 'critical', { force: true }),
        q('k', 'critical'),
      ];
    };

    afterAll(async () => {
      await redis.del(cooldown.key(WALLET, pool), cooldown.key(WALLET, `${pool}-1`), cooldown.key(WALLET, `${pool}-n`));
    });

    it('decides a mixed batch exactly as the same alerts one by one', async () => {
      const expected = await oneByOne(mixed('one', `${pool}-1`));
      expect(expected).toEqual([
        'taken', // a: the first
        'held', // b: same level inside a's cooldown
        'held', // c: lower
        'taken', // a again: the alert that started the cooldown
        'taken', // d: worse
        'held', // e: same level
        'taken', // f: a trigger not sent before is news
        'held', // g: pool_frozen was sent with f
        'held', // h: inside the cooldown
        'duplicate', // h again: taken once
        'taken', // i: no channel wants it (no cooldown asked)
        'duplicate', // i again
        'taken', // j: forced
        'held', // k: inside j's cooldown
      ]);
      const batch = await cooldown.decide(mixed('batch', `${pool}-n`));
      await cooldown.markTaken([once('batch-h'), once('batch-i')]);
      expect(batch).toEqual(expected);
      expect(await redis.get(cooldown.key(WALLET, `${pool}-n`))).toMatch(/^3:batch-j:/);
    });

    it('costs one Redis round trip, whatever its size', async () => {
      const counted = createRedisConnection({ url: REDIS_URL, host: '127.0.0.1', port: 6379, db: 0 }, 'cooldown-count');
      const sent: string[] = [];
      const send = counted.sendCommand.bind(counted);
      counted.sendCommand = ((command: Parameters<typeof send>[0], stream?: Parameters<typeof send>[1]) => {
        sent.push(command.name);
        return send(command, stream);
      }) as typeof counted.sendCommand;
      try {
        await counted.ping();
        const batch = new AlertCooldown(counted, `c${randomBytes(5).toString('hex')}:`);
        const questions = Array.from(
          { length: 200 },
          (_, i): CooldownQuestion => ({
            wallet: `${WALLET}-${i % 50}`,
            pool,
            level: i % 3 === 0 ? 'critical' : 'high',
            alertId: `rt-${i}`,
            force: false,
            cooldown: true,
          }),
        );
        await batch.decide(questions); // the script is loaded (NOSCRIPT, then EVAL) on the first use only
        sent.length = 0;
        const decisions = await batch.decide(questions.map((q) => ({ ...q, alertId: `${q.alertId}-2` })));
        expect(decisions).toHaveLength(200);
        expect(sent).toEqual(['evalsha']);
        await counted.del(...new Set(questions.map((q) => batch.key(q.wallet, pool))));
      } finally {
        await counted.quit();
      }
    });
  });
});
