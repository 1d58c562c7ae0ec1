import nodemailer from 'nodemailer';
import { MessageLog } from './message-log';
import { SmtpSink, type EmailPayload } from './smtp-sink';

const log = new MessageLog();
const sink = new SmtpSink({ log, maxMessageBytes: 64 * 1024 });
const PASSWORD = 'correct-horse-battery-staple';
let port: number;

function transport() {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    auth: { user: 'mailer', pass: PASSWORD },
  });
}

beforeAll(async () => {
  port = await sink.start(0);
});

afterAll(() => sink.stop());

beforeEach(() => {
  sink.reset();
  log.clear();
});

describe('SmtpSink', () => {
  it('binds an ephemeral loopback port', () => {
    expect(port).toBeGreaterThan(0);
    expect(sink.port).toBe(port);
  });

  it('records a message sent by nodemailer, parsed, without the password', async () => {
    const mark = log.lastId;
    const info = await transport().sendMail({
      from: 'Alerts <alerts@relay.test>',
      to: 'ada@example.test, bob@example.test',
      bcc: 'audit@example.test',
      subject: 'Invoice paid',
      text: 'Your invoice 7 was paid.',
      html: '<p>Your invoice <b>7</b> was paid.</p>',
      headers: { 'X-Relay-Event': 'invoice.paid' },
    });
    expect(info.accepted).toEqual(['ada@example.test', 'bob@example.test', 'audit@example.test']);

    const entry = await log.waitFor({ channel: 'email', destination: 'bob@example.test', since: mark });
    const payload = entry.payload as EmailPayload;
    expect(entry).toMatchObject({
      outcome: 'delivered',
      status: 250,
      text: 'Your invoice 7 was paid.',
      source: 'mailer',
    });
    expect(entry.destination).toBe('ada@example.test, bob@example.test, audit@example.test');
    expect(payload).toMatchObject({
      from: '"Alerts" <alerts@relay.test>',
      to: ['ada@example.test', 'bob@example.test'],
      subject: 'Invoice paid',
      html: '<p>Your invoice <b>7</b> was paid.</p>',
      envelope: { mailFrom: 'alerts@relay.test' },
    });
    expect(payload.headers['x-relay-event']).toBe('invoice.paid');
    expect(payload.headers['message-id']).toBe(info.messageId);
    expect(JSON.stringify(log.list())).not.toContain(PASSWORD);
  });

  it('answers an injected 450 at RCPT as a temporary failure', async () => {
    sink.failNext({ stage: 'rcpt', code: 450 });
    const error = await transport()
      .sendMail({ from: 'a@relay.test', to: 'ada@example.test', subject: 's', text: 't' })
      .catch((e: { responseCode?: number }) => e);
    expect(error).toMatchObject({ responseCode: 450 });
    expect(log.list({ channel: 'email' })).toEqual([
      expect.objectContaining({ outcome: 'rejected', status: 450, destination: 'ada@example.test' }),
    ]);
  });

  it('answers an injected 550 after DATA as a permanent failure, logging the parsed message', async () => {
    sink.failNext({ stage: 'data', code: 550 });
    const error = await transport()
      .sendMail({ from: 'a@relay.test', to: 'ada@example.test', subject: 'refused', text: 'nope' })
      .catch((e: { responseCode?: number }) => e);
    expect(error).toMatchObject({ responseCode: 550 });
    const entry = log.list({ channel: 'email' })[0];
    expect(entry).toMatchObject({ outcome: 'rejected', status: 550, text: 'nope' });
    expect((entry.payload as EmailPayload).subject).toBe('refused');
    // Faults are used up: the next message goes through.
    await transport().sendMail({ from: 'a@relay.test', to: 'ada@example.test', subject: 'ok', text: 'fine' });
    expect(log.list({ outcome: 'delivered' })).toHaveLength(1);
  });

  it('refuses a message over the size limit with 552', async () => {
    const error = await transport()
      .sendMail({ from: 'a@relay.test', to: 'ada@example.test', subject: 'big', text: 'x'.repeat(100 * 1024) })
      .catch((e: { responseCode?: number }) => e);
    expect(error).toMatchObject({ responseCode: 552 });
    expect(log.list({ outcome: 'rejected' })[0]).toMatchObject({ status: 552 });
  });
});
