/**
 * An attacker guessing API keys from the same address as an honest client (behind one ingress, one NAT): real
 * gateways in front of the real subscription service, one Redis. Failed attempts drain a bucket of their own, so
 * the honest client's valid keys, never seen by the gateways before, are neither refused nor braked.
 */
import { randomInt } from 'node:crypto';
import { AppProcess } from '@rp/dev';
import { newApiKey } from './support/fake-subscription';
import { issuePartnerKey } from './support/partner-keys';
import { startApp } from './support/running-apps';

const TOKEN = 'e2e-key-guessing-token-0123456789';
const ADMIN_KEY = 'e2e-key-guessing-admin-0123456789';
/** Bogus keys per second from the honest client's address. */
const GUESSES_PER_SECOND = 20;

function clientIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

describe('an attacker guessing keys from the address of an honest client', () => {
  let subscription: AppProcess;
  let gateways: AppProcess[];

  beforeAll(async () => {
    subscription = await startApp('subscription', {
      INTERNAL_TOKEN: TOKEN,
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      X402_LEDGER_NETWORK: 'ledger:testnet',
    });
    const env = {
      SUBSCRIPTION_URL: subscription.url,
      INTERNAL_TOKEN: TOKEN,
      TRUST_PROXY: '1',
      // Small buckets, so the attacker empties them within a second: the per-IP bucket the old gateway charged
      // failures to, and the failure bucket of the new one.
      PUBLIC_BURST: '10',
      KEY_FAILURE_BURST: '5',
      KEY_FAILURE_RATE_LIMIT: '1',
      // Each honest key is cached briefly: calls after that first lookup look it up again.
      KEY_CACHE_TTL_MS: '200',
    };
    gateways = await Promise.all([startApp('gateway', env), startApp('gateway', env)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all((gateways ?? []).map((gateway) => gateway.stop()));
    await subscription?.stop();
  });

  it('costs the honest client, whose keys are not cached yet, no 401 and no 429', async () => {
    // Keys issued through a gateway (admin route) from other addresses: the gateways have never looked them up.
    const keys: string[] = [];
    for (let i = 0; i < 6; i += 1) keys.push(await issuePartnerKey(gateways[i % 2], ADMIN_KEY, clientIp()));

    const shared = clientIp();
    const started = Date.now();
    const attacker: number[] = [];
    let sent = 0;
    const guess = () => {
      const gateway = gateways[sent % 2];
      sent += 1;
      void fetch(`${gateway.url}/api/v1/keys/me`, {
        headers: { authorization: `Bearer ${newApiKey()}`, 'x-forwarded-for': shared },
      }).then(
        (response) => attacker.push(response.status),
        () => attacker.push(0),
      );
    };
    const timer = setInterval(guess, 1000 / GUESSES_PER_SECOND);
    try {
      // Events, not sleeps: the honest calls start once the attacker has emptied the failure bucket.
      await until(() => attacker.includes(429), 'the attacker was refused with 429');

      const honest: { key: number; status: number }[] = [];
      for (let round = 0; round < 3; round += 1) {
        for (const [index, apiKey] of keys.entries()) {
          const response = await fetch(`${gateways[(index + round) % 2].url}/api/v1/keys/me`, {
            headers: { authorization: `Bearer ${apiKey}`, 'x-forwarded-for': shared },
          });
          honest.push({ key: index, status: response.status });
          await response.arrayBuffer();
        }
        // Long enough for the short key cache to forget: the next round looks every key up again.
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect(honest.filter((call) => call.status !== 200)).toEqual([]);
    } finally {
      clearInterval(timer);
    }
    await until(() => attacker.length === sent, 'every guess was answered');
    // The attacker got 401s until its failure bucket ran dry (5, plus one a minute of refill), then only 429s.
    const refilled = Math.floor((Date.now() - started) / 60_000);
    const unauthorized = attacker.filter((status) => status === 401).length;
    expect(unauthorized).toBeGreaterThanOrEqual(5);
    expect(unauthorized).toBeLessThanOrEqual(5 + refilled);
    expect(attacker.filter((status) => status !== 401 && status !== 429)).toEqual([]);
  }, 90_000);
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: did not happen within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
