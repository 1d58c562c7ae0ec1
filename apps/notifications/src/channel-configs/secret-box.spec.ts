import { randomBytes } from 'node:crypto';
import { maskBotToken, maskEmail, maskWebhookUrl } from './masking';
import { SecretBox } from './secret-box';
import vectors from './secret-box.vectors.json';

describe('secrets at rest', () => {
  it('seals with AES-256-GCM (fresh IV each time) and opens only with the same key', () => {
    const key = randomBytes(32).toString('hex');
    const box = new SecretBox(key);
    const a = box.seal('123:secret');
    expect(a).not.toContain('secret');
    expect(a).not.toBe(box.seal('123:secret'));
    expect(box.open(a)).toBe('123:secret');
    expect(new SecretBox(randomBytes(32).toString('base64')).seal('x')).toMatch(/^v1\./);
    expect(() => new SecretBox(randomBytes(32).toString('hex')).open(a)).toThrow();
    // Flip one bit of the ciphertext itself. (Changing the last base64url characters is not always a change: the
    // last character of a 10-byte body carries four unused bits, and 'A' -> 'B' may flip only those.)
    const [version, iv, tag, body] = a.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 0x01;
    const tampered = [version, iv, tag, flipped.toString('base64url')].join('.');
    expect(tampered).not.toBe(a);
    expect(() => box.open(tampered)).toThrow();
  });

  it('still opens values sealed before SecretBox used SealedBox (configured and development key)', () => {
    const { keyHex, botToken, developmentKey } = vectors;
    expect(new SecretBox(keyHex).open(botToken.sealed)).toBe(botToken.plain);
    expect(new SecretBox(undefined).open(developmentKey.sealed)).toBe(developmentKey.plain);
    expect(() => new SecretBox(undefined).open(botToken.sealed)).toThrow();
  });

  it('masks tokens, webhook URLs and emails', () => {
    expect(maskBotToken('123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi')).toBe('123456:****fghi');
    expect(maskWebhookUrl('https://discord.com/api/webhooks/1/secret-token')).toBe(
      'https://discord.com/api/webhooks/****',
    );
    expect(maskWebhookUrl('https://hooks.slack.com/services/T0/B0/XYZ')).toBe(
      'https://hooks.slack.com/services/T0/****',
    );
    expect(maskEmail('alice@example.com')).toBe('a****@example.com');
  });
});
