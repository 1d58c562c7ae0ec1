/**
 * The history end to end, through the gateway with an API key, on real processes (notifications in role `all`, a
 * ledger every second): the monitor's rounds write the wallet's health series, which `GET /rms/history` returns;
 * a price drop raises an alert that `GET /rms/alerts` lists with the webhook's delivery; another account's key gets
 * 404, no key 401.
 */
import { type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { notificationsCalls } from './support/notification-channels';
import { privateRedis } from './support/private-redis';

const LEDGER_MS = 1000;
/** The longest the test waits for something the monitor does (a bound on failure, not a timing assertion). */
const WAIT_MS = 120_000;

describe('history through the gateway', () => {
  let s: Stack;
  let redis: Awaited<ReturnType<typeof privateRedis>>;

  beforeAll(async () => {
    redis = await privateRedis();
    s = await startStack({
      apps: ['subscription', 'notifications', 'gateway'],
      roles: { notifications: ['all'] },
      ledgerIntervalMs: LEDGER_MS,
      redisUrl: redis.url,
      env: { notifications: { RMS_LEDGER_POLL_MS: '100', EMAIL_FROM: 'alerts@example.com' } },
    });
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await redis?.kill();
  });

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it("returns the monitor's health series and the alert with its delivery, to the account only", async () => {
    const { apiKey: key } = await s.api.partnerKey();
    const { apiKey: otherKey } = await s.api.partnerKey();
    // 10 000 XLM at $0.30 x 0.75 against 1 500 USDC / 0.95: health factor 1.425 (medium).
    const wallet = s.borrower({ xlm: 10_000n * UNIT, usdc: 1_500n * UNIT }).address;
    const hookUrl = notificationsCalls(s).hookUrl();
    const body = { walletAddress: wallet, channelWebhook: hookUrl, minRiskLevel: 'high' };
    expect((await s.api.call('POST', '/rms/notifications/channelhook', { key, body })).status).toBe(201);

    const points = await until('a point of the health series', async () => {
      const answer = await s.api.call('GET', `/rms/history/${wallet}`, { key });
      expect(answer.status).toBe(200);
      const found = answer.body.series.find(
        (series: { poolAddress: string }) => series.poolAddress === s.scenario.pool,
      );
      return found?.points.length > 0 ? found.points : undefined;
    });
    expect(points[0]).toMatchObject({ riskLevel: 'medium', triggers: ['low_health_factor'] });
    expect(points[0].healthFactor).toBeCloseTo(1.425, 2);

    // $0.22: health factor 1.045, critical.
    const set = await fetch(`${s.sandbox.url}/control/oracles/${s.scenario.oracle}/prices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: s.scenario.xlm, price: '2200000' }),
    });
    expect(set.status).toBe(200);
    const alert = await until('the alert delivered', async () => {
      const answer = await s.api.call('GET', `/rms/alerts?walletAddress=${wallet}&level=critical`, { key });
      expect(answer.status).toBe(200);
      const found = answer.body.alerts[0];
      return found?.channels[0]?.outcome === 'delivered' ? found : undefined;
    });
    expect(alert).toMatchObject({ walletAddress: wallet, poolAddress: s.scenario.pool, riskLevel: 'critical' });
    expect(alert.channels).toEqual([{ channel: 'channelhook', outcome: 'delivered', at: expect.any(String) }]);
    const critical = await until('a critical point', async () => {
      const answer = await s.api.call('GET', `/rms/history/${wallet}`, { key });
      return answer.body.series[0]?.points.find((p: { riskLevel: string }) => p.riskLevel === 'critical');
    });
    expect(critical.triggers).toContain('low_health_factor');

    expect((await s.api.call('GET', `/rms/history/${wallet}`, { key: otherKey })).status).toBe(404);
    expect((await s.api.call('GET', `/rms/alerts?walletAddress=${wallet}`, { key: otherKey })).status).toBe(404);
    expect((await s.api.call('GET', `/rms/alerts?walletAddress=${wallet}`)).status).toBe(401);
  }, 400_000);
});
