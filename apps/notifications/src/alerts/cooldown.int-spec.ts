/**
 * The cooldown on the test Redis: held back at the same level, a worse level at once, and the alert that started a
 * cooldown passing again, which is what lets an alert taken in twice (its first intake died before the queue)
 * still be queued.
 */
import { randomBytes } from 'node:crypto';
import { createRedisConnection, type RedisClient } from '@rp/platform';
import { AlertCooldown } from './cooldown';

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
});
