import { ChannelStandIns } from '@rp/sandbox';
import type { AlertMessage } from './alert-message';
import { plainText } from './alert-message';
import { EmailProvider, emailHtml } from './email.provider';
import { headerText } from './email-mime';

const message: AlertMessage = {
  level: 'critical',
  title: 'CRITICAL risk: health factor 1.0432 — wallet GABC…XYZ, pool “Fixed” ≈ €1,234.50 and a long tail to fold',
  facts: [
    { label: 'Health factor', value: '1.0432' },
    { label: 'Collateral', value: '$1,234.50 (ünïcödé 日本語)' },
  ],
  action: 'LIQUIDATE: the position is close to liquidation; repay or close it now.',
  howTo: 'POST /api/v1/txb/build {"action":"REPAY"}',
  footer: 'Sent by the risk service.\n.line starting with a dot',
};

describe('EmailProvider against the sandbox SMTP sink (mailparser reads what was sent)', () => {
  const standIns = new ChannelStandIns();
  const { log, smtp: sink } = standIns;
  let provider: EmailProvider;

  beforeAll(async () => {
    const port = await sink.start(0);
    provider = new EmailProvider({ host: '127.0.0.1', port, from: 'alerts@example.com' });
  });
  afterAll(async () => {
    provider.close();
    await sink.stop();
  });

  it('delivers the subject, the text and HTML parts and the headers intact, UTF-8 included', async () => {
    await provider.send('holder@example.com', message);
    const [entry] = log.list({ channel: 'email' });
    const payload = entry?.payload as {
      subject: string;
      text: string;
      html: string;
      from: string;
      to: string[];
      headers: Record<string, string>;
      envelope: { mailFrom: string; rcptTo: string[] };
    };
    expect(entry?.outcome).toBe('delivered');
    expect(payload.subject).toBe(message.title);
    expect(payload.text).toBe(plainText(message));
    expect(payload.html).toBe(emailHtml(message));
    expect(payload.from).toBe('alerts@example.com');
    expect(payload.to).toEqual(['holder@example.com']);
    expect(payload.envelope).toEqual({ mailFrom: 'alerts@example.com', rcptTo: ['holder@example.com'] });
    expect(payload.headers['message-id']).toMatch(/^<[0-9a-f-]{36}@example\.com>$/);
    expect(Date.parse(payload.headers['date'] ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(payload.headers['mime-version']).toBe('1.0');
  });

  it('keeps a line break in the subject from starting a header of its own', async () => {
    await provider.send('holder@example.com', { ...message, title: 'Alert\r\nBcc: someone@evil.example' });
    const entry = log.list({ channel: 'email' }).at(-1);
    const payload = entry?.payload as { subject: string; headers: Record<string, string>; envelope: object };
    expect(payload.subject).toBe('Alert Bcc: someone@evil.example');
    expect(payload.envelope).toEqual({ mailFrom: 'alerts@example.com', rcptTo: ['holder@example.com'] });
    expect(headerText('a\nb')).toBe('a b');
  });
});
