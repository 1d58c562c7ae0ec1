import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { SecretBox } from '../channel-configs/secret-box';
import { MissingBotTokenError, PACE_MS, destinationKeyOf, destinationOf, laneOf } from './destination';

const box = new SecretBox(undefined);
const base = {
  id: 'c1',
  accountId: 'a',
  walletAddress: 'G',
  enabled: true,
  minRiskLevel: 'high' as const,
  createdAt: new Date(),
  updatedAt: new Date(),
};
const messenger = (chatId: string, botToken?: string): ChannelConfigRecord => ({
  ...base,
  channel: 'messenger',
  chatId,
  botToken: botToken ? box.seal(botToken) : undefined,
});

describe('destinations: lanes and pacing per provider rules', () => {
  it('paces a Telegram chat at 1/s, a group at 20/min, and every chat of a bot at about 30/s', () => {
    const chat = destinationOf(messenger('12345', `77:${'x'.repeat(35)}`), box, undefined);
    expect(chat.key).toBe('tg:77:12345');
    expect(chat.paces).toEqual([
      { key: 'tg:77:12345', intervalMs: PACE_MS.telegramChat },
      { key: 'tgbot:77', intervalMs: PACE_MS.telegramBot },
    ]);
    expect(PACE_MS.telegramChat).toBeGreaterThanOrEqual(1000);
    expect(60_000 / PACE_MS.telegramGroup).toBeLessThanOrEqual(20);
    expect(1000 / PACE_MS.telegramBot).toBeLessThanOrEqual(30);
    const group = destinationOf(messenger('-1001234567890', `77:${'x'.repeat(35)}`), box, undefined);
    expect(group.paces[0]).toEqual({ key: 'tg:77:-1001234567890', intervalMs: PACE_MS.telegramGroup });
    expect(chat.masked).not.toContain('x'.repeat(10));
  });

  it('uses the default bot without a token of its own, and says so when there is none', () => {
    expect(destinationOf(messenger('@alerts'), box, `99:${'y'.repeat(35)}`).key).toBe('tg:99:@alerts');
    expect(() => destinationOf(messenger('@alerts'), box, undefined)).toThrow(MissingBotTokenError);
  });

  it('paces a webhook at about 1/s under a key that does not reveal the URL, and leaves email unpaced', () => {
    const url = 'https://discord.com/api/webhooks/1/secret-token';
    const hook = destinationOf({ ...base, channel: 'channelhook', webhookUrl: box.seal(url) }, box, undefined);
    expect(hook.key).toMatch(/^hook:[0-9a-f]{24}$/);
    expect(hook.paces).toEqual([{ key: hook.key, intervalMs: PACE_MS.webhook }]);
    expect(hook.masked).toBe('https://discord.com/api/webhooks/****');
    const mail = destinationOf({ ...base, channel: 'email', email: 'Alice@Example.com' }, box, undefined);
    expect(mail.paces).toEqual([]);
    expect(mail.masked).toBe('a****@example.com');
  });

  it('keys a destination by its address in clear as delivery does, and takes the stored key without opening a secret', () => {
    const token = `77:${'x'.repeat(35)}`;
    const hook = 'https://discord.com/api/webhooks/1/abc';
    expect(destinationKeyOf({ channel: 'messenger', botToken: token, chatId: '-100' })).toBe(
      destinationOf(messenger('-100', token), box, undefined).key,
    );
    const channelhook: ChannelConfigRecord = { ...base, channel: 'channelhook', webhookUrl: box.seal(hook) };
    expect(destinationKeyOf({ channel: 'channelhook', url: hook })).toBe(
      destinationOf(channelhook, box, undefined).key,
    );
    const sealed = {
      open: () => {
        throw new Error('opened a secret');
      },
    } as unknown as SecretBox;
    const stored = { ...channelhook, destinationKey: destinationKeyOf({ channel: 'channelhook', url: hook }) };
    expect(laneOf(stored, sealed, undefined)).toBe(stored.destinationKey);
  });
});
