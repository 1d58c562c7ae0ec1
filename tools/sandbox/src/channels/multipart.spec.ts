import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageLog } from './message-log';
import { TelegramBotApi } from './telegram-bot-api';
import { WebhookReceiver } from './webhook-receiver';

const log = new MessageLog();
const hooks = new WebhookReceiver({ log });
const telegram = new TelegramBotApi({ log });
let server: Server;
let base: string;
const DISCORD = 'discord/1122334455/tok-en_1';

/** A PNG signature followed by every byte value, twice: what a text round trip would corrupt. */
const BINARY = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256)),
  // A line that looks like a boundary inside the file must not end the part.
  Buffer.from('\r\n--not-the-boundary\r\n\r\n'),
]);
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://sandbox');
    const handled = pathname.startsWith('/hooks/')
      ? hooks.handle(req, res, pathname.slice('/hooks/'.length))
      : telegram.handle(req, res, pathname.slice('/telegram'.length));
    handled.catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  hooks.reset();
  telegram.reset();
  log.clear();
});

describe('multipart bodies at the stand-ins', () => {
  it('a binary file part arrives at the Discord stand-in byte for byte', async () => {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'Health factor 1.05 — see chart' }));
    form.append('files[0]', new Blob([BINARY], { type: 'image/png' }), 'chart.png');

    const res = await fetch(`${base}/hooks/${DISCORD}?wait=true`, { method: 'POST', body: form });

    expect(res.status).toBe(200);
    const message = (await res.json()) as { content: string; attachments: unknown[] };
    expect(message.content).toBe('Health factor 1.05 — see chart');
    expect(message.attachments).toEqual([
      { id: '0', filename: 'chart.png', size: BINARY.length, content_type: 'image/png' },
    ]);
    const [entry] = log.list({ channel: 'webhook' });
    expect(entry).toMatchObject({ outcome: 'delivered', text: 'Health factor 1.05 — see chart' });
    expect(entry?.files).toEqual([
      {
        field: 'files[0]',
        filename: 'chart.png',
        contentType: 'image/png',
        size: BINARY.length,
        sha256: sha256(BINARY),
      },
    ]);
  });

  it('text fields beside a binary part keep their UTF-8 at the Telegram stand-in', async () => {
    const form = new FormData();
    form.append('chat_id', '42');
    form.append('text', 'Zdravo — ⚠ 1.05');
    form.append('document', new Blob([BINARY]), 'report.bin');

    const res = await fetch(`${base}/telegram/bot123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi/sendMessage`, {
      method: 'POST',
      body: form,
    });

    expect(res.status).toBe(200);
    expect(log.list({ channel: 'telegram' })[0]).toMatchObject({ destination: '42', text: 'Zdravo — ⚠ 1.05' });
  });

  it('answers a broken multipart body 400 in the channel’s own words, not a crash', async () => {
    const res = await fetch(`${base}/hooks/${DISCORD}`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="payload_json"\r\n\r\n{"content":"x"}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 50109 });
  });
});
