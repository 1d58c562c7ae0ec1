import { describeConfig, loadConfig, secretValuesOf } from '@rp/platform';
import { NotificationsSettings } from './notifications-settings';

const POOL = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';

describe('notifications settings', () => {
  it('defaults SMTP to port 587 and the messenger API to Telegram', () => {
    expect(loadConfig(NotificationsSettings, {})).toMatchObject({
      PORT: 3003,
      SMTP_PORT: 587,
      MESSENGER_API_URL: 'https://api.telegram.org',
      RMS_POOLS: [],
    });
  });

  it('reads the watched pools and keeps the admin key, webhook secret, bot token and SMTP password secret', () => {
    const secrets = {
      RMS_ADMIN_API_KEY: 'admin-key-0123456789',
      RMS_WEBHOOK_SECRET: 'webhook-secret-0123456789',
      MESSENGER_BOT_TOKEN: '123456:bot-token-value',
      SMTP_PASSWORD: 'smtp-password-value',
    };
    const config = loadConfig(NotificationsSettings, { ...secrets, RMS_POOLS: `${POOL},${POOL}` });
    expect(config.RMS_POOLS).toEqual([POOL, POOL]);
    expect(secretValuesOf(config).sort()).toEqual(Object.values(secrets).sort());
    const described = JSON.stringify(describeConfig(config));
    for (const secret of Object.values(secrets)) expect(described).not.toContain(secret);
  });

  it.each([
    [
      { RMS_POOLS: `${POOL},GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6` },
      'RMS_POOLS must be a comma-separated list of contract C-addresses',
    ],
    [{ RMS_ADMIN_API_KEY: 'short' }, 'RMS_ADMIN_API_KEY must be at least 16 characters (value hidden)'],
    [{ EMAIL_FROM: 'alerts at example' }, 'EMAIL_FROM must be an email address'],
    [{ SMTP_PORT: '0' }, 'SMTP_PORT must be an integer between 1 and 65535'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(NotificationsSettings, env)).toThrow(message);
  });

  it('requires NOTIFICATIONS_ENCRYPTION_KEY in production and checks its shape', () => {
    expect(() => loadConfig(NotificationsSettings, { NODE_ENV: 'production', INTERNAL_TOKEN: 'x'.repeat(32) })).toThrow(
      'NOTIFICATIONS_ENCRYPTION_KEY is required when NODE_ENV is production',
    );
    expect(() => loadConfig(NotificationsSettings, { NOTIFICATIONS_ENCRYPTION_KEY: 'short' })).toThrow(
      'NOTIFICATIONS_ENCRYPTION_KEY must be 32 bytes',
    );
    expect(
      loadConfig(NotificationsSettings, { NOTIFICATIONS_ENCRYPTION_KEY: 'ab'.repeat(32) }).NOTIFICATIONS_ENCRYPTION_KEY,
    ).toHaveLength(64);
  });

  it('runs every part by default and one part per role', () => {
    const all = loadConfig(NotificationsSettings, {});
    expect(['api', 'monitor', 'worker'].every((part) => all.runs(part as 'api'))).toBe(true);
    const worker = loadConfig(NotificationsSettings, { NOTIFICATIONS_ROLE: 'worker' });
    expect([worker.runs('api'), worker.runs('monitor'), worker.runs('worker')]).toEqual([false, false, true]);
    expect(() => loadConfig(NotificationsSettings, { NOTIFICATIONS_ROLE: 'cron' })).toThrow(
      'NOTIFICATIONS_ROLE must be one of api, monitor, worker, all',
    );
    expect(
      loadConfig(NotificationsSettings, { NOTIFICATIONS_WEBHOOK_HOSTS: '127.0.0.1:4000,hooks.local:443' })
        .NOTIFICATIONS_WEBHOOK_HOSTS,
    ).toEqual(['127.0.0.1:4000', 'hooks.local:443']);
  });
});
