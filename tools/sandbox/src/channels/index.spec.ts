import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { ChannelStandIns } from './index';

const TOKEN = '42:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const standIns = new ChannelStandIns();
let server: Server;
let base: string;
let smtpPort: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    const done = (p: Promise<void>) => p.catch(() => res.destroy());
    if (url.startsWith('/telegram/')) done(standIns.telegram.handle(req, res, url.slice('/telegram'.length)));
    else if (url.startsWith('/hooks/')) done(standIns.webhooks.handle(req, res, url.slice('/hooks/'.length)));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  smtpPort = await standIns.smtp.start(0);
});

afterAll(async () => {
  await standIns.smtp.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('ChannelStandIns', () => {
  it('shares one log across the three channels and summarises it', async () => {
    await fetch(`${base}/telegram/bot${TOKEN}/sendMessage`, json({ chat_id: 1, text: 'tg' }));
    await fetch(`${base}/hooks/slack/T1/B1/X1`, json({ text: 'slack' }));
    await fetch(`${base}/hooks/discord/5/t`, json({}));
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await mailer.sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 's', text: 'mail' });
    await standIns.log.waitFor({ channel: 'email' });

    const snapshot = standIns.snapshot();
    expect(snapshot.counts).toEqual({ telegram: 1, webhook: 2, email: 1 });
    expect(snapshot.rejected).toBe(1);
    expect(snapshot.latest.map((e) => e.text)).toEqual(['mail', '', 'slack', 'tg']);
  });

  it('reset() clears the log and every injected fault', async () => {
    standIns.telegram.blockChat(2);
    standIns.webhooks.removeHook('slack/T1/B1/X2');
    standIns.smtp.failNext({ stage: 'rcpt', code: 550, count: 5 });
    standIns.reset();
    expect(standIns.snapshot()).toEqual({ counts: { telegram: 0, webhook: 0, email: 0 }, rejected: 0, latest: [] });
    expect((await fetch(`${base}/telegram/bot${TOKEN}/sendMessage`, json({ chat_id: 2, text: 'x' }))).status).toBe(200);
    expect((await fetch(`${base}/hooks/slack/T1/B1/X2`, json({ text: 'x' }))).status).toBe(200);
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await expect(
      mailer.sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 's', text: 'ok' }),
    ).resolves.toBeDefined();
  });
});
