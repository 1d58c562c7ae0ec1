import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageLog } from './message-log';
import { TelegramBotApi } from './telegram-bot-api';

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw_x';
let clock = 1_700_000_000_000;
const log = new MessageLog({ now: () => clock });
const telegram = new TelegramBotApi({ log, now: () => clock });
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/telegram/')) {
      telegram.handle(req, res, url.slice('/telegram'.length)).catch(() => res.destroy());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  telegram.reset();
  log.clear();
  clock += 60_000;
});

// Bot API answers are deep, loosely shaped JSON; tests assert on them field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const readJson = async (res: Response): Promise<Json> => res.json();

async function call(
  method: string,
  body: unknown,
  token = TOKEN,
): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(`${base}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await readJson(res), headers: res.headers };
}

describe('TelegramBotApi', () => {
  it('answers sendMessage with a Message in Telegram shape, ids counting per chat', async () => {
    const first = await call('sendMessage', { chat_id: 42, text: 'hello' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      ok: true,
      result: {
        message_id: 1,
        from: { id: 123456789, is_bot: true, first_name: 'Sandbox Bot', username: 'sandbox_123456789_bot' },
        chat: { id: 42, first_name: 'Sandbox User', type: 'private' },
        date: Math.floor(clock / 1000),
        text: 'hello',
      },
    });
    clock += 1_000;
    const second = await call('sendMessage', { chat_id: '42', text: 'again' });
    expect(second.json.result.message_id).toBe(2);
    const other = await call('sendMessage', { chat_id: -1001234567890, text: 'group' });
    expect(other.json.result.message_id).toBe(1);
    expect(other.json.result.chat.type).toBe('supergroup');
  });

  it('accepts form-urlencoded bodies, GET query strings and @channel names', async () => {
    const form = await fetch(`${base}/bot${TOKEN}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ chat_id: '@alerts_channel', text: 'via form', disable_web_page_preview: 'true' }),
    });
    const json = await readJson(form);
    expect(json.result.chat).toMatchObject({ type: 'channel', username: 'alerts_channel' });
    expect(json.result.link_preview_options).toEqual({ is_disabled: true });
    const get = await fetch(`${base}/bot${TOKEN}/sendMessage?chat_id=7&text=via%20query`);
    expect((await readJson(get)).result.text).toBe('via query');
  });

  it('parses HTML into plain text and entities, and rejects bad HTML like Telegram', async () => {
    const ok = await call('sendMessage', {
      chat_id: 1,
      text: '<b>Paid</b> &amp; <a href="https://x.test">done</a>',
      parse_mode: 'HTML',
    });
    expect(ok.json.result.text).toBe('Paid & done');
    expect(ok.json.result.entities).toEqual([
      { type: 'bold', offset: 0, length: 4 },
      { type: 'text_link', offset: 7, length: 4, url: 'https://x.test' },
    ]);
    const unclosed = await call('sendMessage', { chat_id: 2, text: '<b>oops', parse_mode: 'HTML' });
    expect(unclosed.status).toBe(400);
    expect(unclosed.json).toEqual({
      ok: false,
      error_code: 400,
      description: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    });
    const unknown = await call('sendMessage', { chat_id: 3, text: 'a <div>x</div>', parse_mode: 'HTML' });
    expect(unknown.json.description).toBe(
      `Bad Request: can't parse entities: Unsupported start tag "div" at byte offset 2`,
    );
  });

  it('accepts 4096 characters and rejects 4097 as too long', async () => {
    expect((await call('sendMessage', { chat_id: 10, text: 'x'.repeat(4096) })).status).toBe(200);
    const long = await call('sendMessage', { chat_id: 11, text: 'x'.repeat(4097) });
    expect(long.status).toBe(400);
    expect(long.json.description).toBe('Bad Request: message is too long');
  });

  it('rejects empty text, missing chat_id and unknown chats', async () => {
    expect((await call('sendMessage', { chat_id: 1, text: '' })).json.description).toBe(
      'Bad Request: message text is empty',
    );
    expect((await call('sendMessage', { chat_id: 2, text: '<b> </b>', parse_mode: 'HTML' })).json.description).toBe(
      'Bad Request: message text is empty',
    );
    expect((await call('sendMessage', { text: 'x' })).json.description).toBe('Bad Request: chat_id is empty');
    expect((await call('sendMessage', { chat_id: 'nobody', text: 'x' })).json.description).toBe(
      'Bad Request: chat not found',
    );
  });

  it('limits one message per second per chat with a 429 and Retry-After, leaving other chats alone', async () => {
    expect((await call('sendMessage', { chat_id: 5, text: 'one' })).status).toBe(200);
    clock += 300;
    const limited = await call('sendMessage', { chat_id: 5, text: 'two' });
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 1',
      parameters: { retry_after: 1 },
    });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await call('sendMessage', { chat_id: 6, text: 'other chat' })).status).toBe(200);
    clock += 700;
    expect((await call('sendMessage', { chat_id: 5, text: 'two again' })).status).toBe(200);
  });

  it('injects rate limits, blocked users, migrated groups and 5xx on demand', async () => {
    telegram.rateLimitNext('*', 17);
    const forced = await call('sendMessage', { chat_id: 8, text: 'x' });
    expect(forced.json.parameters).toEqual({ retry_after: 17 });
    expect(forced.headers.get('retry-after')).toBe('17');

    telegram.blockChat(8);
    const blocked = await call('sendMessage', { chat_id: 8, text: 'x' });
    expect(blocked.status).toBe(403);
    expect(blocked.json).toEqual({ ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' });

    telegram.migrateChat(-4001, -1009876543210);
    const migrated = await call('sendMessage', { chat_id: -4001, text: 'x' });
    expect(migrated.status).toBe(400);
    expect(migrated.json).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: group chat was upgraded to a supergroup chat',
      parameters: { migrate_to_chat_id: -1009876543210 },
    });
    expect((await call('sendMessage', { chat_id: -1009876543210, text: 'x' })).status).toBe(200);

    telegram.failNext(502, 2);
    expect((await call('sendMessage', { chat_id: 9, text: 'x' })).json).toEqual({
      ok: false,
      error_code: 502,
      description: 'Bad Gateway',
    });
    expect((await call('sendMessage', { chat_id: 9, text: 'x' })).status).toBe(502);
    expect((await call('sendMessage', { chat_id: 9, text: 'x' })).status).toBe(200);
  });

  it('answers 401 for a malformed token, 404 for unknown methods, and getMe', async () => {
    const bad = await call('sendMessage', { chat_id: 1, text: 'x' }, '123:short');
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const unknown = await call('sendPigeon', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ ok: false, error_code: 404, description: 'Not Found: method not found' });
    const me = await call('getMe', {});
    expect(me.json.result).toMatchObject({ id: 123456789, is_bot: true });
  });

  it('logs delivered and rejected messages with the bot id but never the token', async () => {
    const mark = log.lastId;
    await call('sendMessage', { chat_id: 77, text: '<i>hi</i>', parse_mode: 'HTML' });
    await call('sendMessage', { chat_id: 77, text: 'too soon' });
    const delivered = await log.waitFor({ channel: 'telegram', destination: '77', since: mark });
    expect(delivered).toMatchObject({ text: 'hi', outcome: 'delivered', status: 200, source: 'bot:123456789' });
    expect(log.list({ since: mark, outcome: 'rejected' })).toEqual([
      expect.objectContaining({ destination: '77', text: 'too soon', status: 429 }),
    ]);
    const secret = TOKEN.split(':')[1];
    expect(JSON.stringify(log.list())).not.toContain(secret);
  });
});
