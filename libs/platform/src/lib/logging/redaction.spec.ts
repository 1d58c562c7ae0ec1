import { PassThrough } from 'node:stream';
import { REDACTED, SecretScrubber, isSecretKey, redactSecrets } from './redaction';

describe('redaction', () => {
  it.each([
    'mnemonic',
    'LEDGER_MNEMONIC',
    'authorization',
    'x-api-key',
    'x-admin-key',
    'x-webhook-secret',
    'apiKey',
    'messengerBotToken',
    'botToken',
    'channelWebhook',
    'webhookUrl',
    'SMTP_PASSWORD',
    'smtpPassword',
    'secretKey',
    'X402_FACILITATOR_LEDGER_SECRET_KEY',
    'x-payment-signature',
  ])('treats %s as secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each(['tokenId', 'walletAddress', 'poolAddress', 'amount', 'email', 'requestId', 'txHash'])(
    'keeps %s visible',
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  it('replaces secret-named keys at any depth and leaves the rest', () => {
    const redacted = redactSecrets({
      wallet: { address: 'GABC', credentials: [{ mnemonic: 'a b c', note: 'kept' }] },
      config: { telegram: { botToken: '123:abc' } },
      tokenId: 'CDEF',
    });
    expect(redacted).toEqual({
      wallet: { address: 'GABC', credentials: [{ mnemonic: REDACTED, note: 'kept' }] },
      config: { telegram: { botToken: REDACTED } },
      tokenId: 'CDEF',
    });
  });

  it('survives cycles', () => {
    const node: Record<string, unknown> = { name: 'n' };
    node['self'] = node;
    expect(redactSecrets(node)).toEqual({ name: 'n', self: '[Circular]' });
  });

  it('scrubs known secret values wherever they appear in a line, JSON-escaped or not', async () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (chunk) => chunks.push(chunk.toString()));
    const scrubber = new SecretScrubber(['correct horse battery staple', 'pa"ss\\word', 'abc'], out);
    scrubber.write('{"msg":"failed with correct horse battery staple in it","err":"pa\\"ss\\\\word"}\n');
    scrubber.write('short abc values are left alone\n');
    await new Promise((resolve) => setImmediate(resolve));
    const written = chunks.join('');
    expect(written).not.toContain('correct horse battery staple');
    expect(written).not.toContain('pa\\"ss\\\\word');
    expect(written).toContain(`"msg":"failed with ${REDACTED} in it"`);
    expect(written).toContain('short abc values');
  });
});
