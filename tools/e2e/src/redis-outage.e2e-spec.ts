/**
 * Redis dies under the real gateway and the real subscription service. The gateway limits in process; subscription
 * never used Redis and stays ready, so keyed calls (whose introspection it answers) keep working.
 */
import { AppProcess } from '@rp/dev';
import { issuePartnerKeyRecord } from './support/partner-keys';
import { privateRedis } from './support/private-redis';
import { startApp } from './support/running-apps';

const TOKEN = 'e2e-redis-outage-token-0123456789';
const ADMIN_KEY = 'e2e-redis-outage-admin-0123456789';

describe('a Redis outage', () => {
  it('leaves subscription ready and keyed calls through the gateway answered', async () => {
    const redis = await privateRedis();
    let subscription: AppProcess | undefined;
    let gateway: AppProcess | undefined;
    try {
      // Both are pointed at the Redis that will die; subscription ignores it (it declares no Redis setting).
      subscription = await startApp('subscription', {
        REDIS_URL: redis.url,
        INTERNAL_TOKEN: TOKEN,
        RMS_ADMIN_API_KEY: ADMIN_KEY,
        X402_LEDGER_NETWORK: 'ledger:testnet',
      });
      gateway = await startApp('gateway', {
        REDIS_URL: redis.url,
        SUBSCRIPTION_URL: subscription.url,
        INTERNAL_TOKEN: TOKEN,
        KEY_CACHE_TTL_MS: '0',
      });
      const { apiKey, keyId } = await issuePartnerKeyRecord(gateway, ADMIN_KEY, '127.0.0.1');
      const me = () => fetch(`${gateway!.url}/api/v1/keys/me`, { headers: { authorization: `Bearer ${apiKey}` } });
      const before = await me();
      expect(before.status).toBe(200);
      expect(((await before.json()) as { keyId?: string }).keyId).toBe(keyId);

      await redis.kill();

      const ready = await fetch(`${subscription.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { database: { status: 'up' } } });
      // No cache (KEY_CACHE_TTL_MS=0): every call asks subscription about the key, and the gateway limits in process.
      for (let i = 0; i < 3; i += 1) {
        const answer = await me();
        expect(answer.status).toBe(200);
        // The issued key itself, answered by subscription: not a cached or made-up identity.
        expect(((await answer.json()) as { keyId?: string }).keyId).toBe(keyId);
      }
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/rate_limit_degraded\{app="gateway"\} 1/);
    } finally {
      await gateway?.stop();
      await subscription?.stop();
      await redis.kill();
    }
  }, 120_000);
});
