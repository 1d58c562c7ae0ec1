import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageLog } from './message-log';
import { WebhookReceiver } from './webhook-receiver';

let clock = 1_700_000_000_000;
const log = new MessageLog({ now: () => clock });
const hooks = new WebhookReceiver({ log, now: () => clock });
let server: Server;
let base: string;
const DISCORD = 'discord/1122334455/tok-en_1';
const SLACK = 'slack/T000/B000/XXXX';

beforeAll(async () => {
  server = createServer((req, res) => {
    // Like the sandbox router: hand over the pathname only, the query stays in req.url.
    const { pathname } = new URL(req.url ?? '/', 'http://sandbox');
    if (pathname.startsWith('/hooks/')) {
      hooks.handle(req, res, pathname.slice('/hooks/'.length)).catch(() => res.destroy());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  hooks.reset();
  log.clear();
  clock += 60_000;
});

async function post(path: string, body: unknown, contentType = 'application/json') {
  const res = await fetch(`${base}/${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) };
}

describe('WebhookReceiver: Discord', () => {
  it('answers 204 with no body, or the message object with ?wait=true', async () => {
    const plain = await post(DISCORD, { content: 'Payment received' });
    expect(plain.status).toBe(204);
    expect(plain.text).toBe('');
    expect(plain.headers.get('x-ratelimit-limit')).toBe('5');

    const waited = await post(`${DISCORD}?wait=true`, { content: 'with wait', username: 'Relay' });
    expect(waited.status).toBe(200);
    expect(waited.json()).toMatchObject({
      type: 0,
      content: 'with wait',
      webhook_id: '1122334455',
      author: { username: 'Relay', bot: true },
      embeds: [],
    });
    expect(waited.json().id).toMatch(/^\d+$/);
  });

  it('logs content plus embed titles, descriptions and fields as the text', async () => {
    const mark = log.lastId;
    await post(DISCORD, {
      content: 'Heads up',
      embeds: [{ title: 'Invoice 7', description: 'paid', fields: [{ name: 'Amount', value: '10 XLM' }] }],
    });
    const entry = await log.waitFor({ channel: 'webhook', destination: DISCORD, since: mark });
    expect(entry).toMatchObject({
      text: 'Heads up\nInvoice 7\npaid\nAmount\n10 XLM',
      status: 204,
      outcome: 'delivered',
      source: 'discord',
    });
  });

  it('rejects empty messages, over-long content, too many embeds and invalid JSON', async () => {
    const empty = await post(DISCORD, { content: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.json()).toEqual({ message: 'Cannot send an empty message', code: 50006 });
    expect((await post(DISCORD, { content: 'x'.repeat(2000) })).status).toBe(204);
    const long = await post(DISCORD, { content: 'x'.repeat(2001) });
    expect(long.json()).toMatchObject({
      code: 50035,
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
    });
    clock += 2_000;
    const embeds = await post(DISCORD, { embeds: Array.from({ length: 11 }, (_, i) => ({ title: `e${i}` })) });
    expect(embeds.json()).toMatchObject({
      code: 50035,
      errors: { embeds: { _errors: [{ message: 'Must be 10 or fewer in length.' }] } },
    });
    const broken = await post(DISCORD, '{"content":');
    expect(broken.status).toBe(400);
    expect(broken.json()).toEqual({ message: 'The request body contains invalid JSON.', code: 50109 });
  });

  it('allows 5 posts per 2 s per webhook, then 429 with Retry-After and a JSON body', async () => {
    for (let i = 0; i < 5; i += 1) expect((await post(DISCORD, { content: `m${i}` })).status).toBe(204);
    clock += 500;
    const limited = await post(DISCORD, { content: 'm5' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json()).toEqual({ message: 'You are being rate limited.', retry_after: 1.5, global: false });
    expect((await post('discord/999/other', { content: 'different hook' })).status).toBe(204);
    clock += 1_500;
    expect((await post(DISCORD, { content: 'm6' })).status).toBe(204);
  });

  it('answers 404 Unknown Webhook for a removed hook, and injected failures', async () => {
    hooks.removeHook(`/hooks/${DISCORD}`, 410);
    const gone = await post(DISCORD, { content: 'x' });
    expect(gone.status).toBe(404);
    expect(gone.json()).toEqual({ message: 'Unknown Webhook', code: 10015 });
    hooks.restoreHook(DISCORD);
    hooks.failNext('*', 503);
    expect((await post(DISCORD, { content: 'x' })).status).toBe(503);
    hooks.rateLimitNext(DISCORD, 3);
    const forced = await post(DISCORD, { content: 'x' });
    expect([forced.status, forced.headers.get('retry-after'), forced.json().retry_after]).toEqual([429, '3', 3]);
    expect((await post(DISCORD, { content: 'x' })).status).toBe(204);
  });
});

describe('WebhookReceiver: Slack', () => {
  it('answers 200 "ok" as text/plain and logs text plus block texts', async () => {
    const mark = log.lastId;
    const res = await post(SLACK, {
      text: 'fallback',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Payment' } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: '*10 XLM* received' },
          fields: [{ type: 'mrkdwn', text: 'from G...' }],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('ok');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const entry = await log.waitFor({ destination: SLACK, since: mark });
    expect(entry.text).toBe('fallback\nPayment\n*10 XLM* received\nfrom G...');
  });

  it('accepts payload=<json> form bodies', async () => {
    const form = new URLSearchParams({ payload: JSON.stringify({ text: 'from a form' }) }).toString();
    const res = await post(SLACK, form, 'application/x-www-form-urlencoded');
    expect(res.text).toBe('ok');
    expect(log.list({ destination: SLACK }).at(-1)?.text).toBe('from a form');
  });

  it('rejects invalid JSON, missing text and malformed blocks with Slack error strings', async () => {
    expect(await post(SLACK, 'not json')).toMatchObject({ status: 400, text: 'invalid_payload' });
    clock += 1_000;
    expect(await post(SLACK, { username: 'bot' })).toMatchObject({ status: 400, text: 'no_text' });
    clock += 1_000;
    expect(await post(SLACK, { blocks: 'nope' })).toMatchObject({ status: 400, text: 'invalid_blocks' });
  });

  it('allows 1 post per second per hook, then 429 with Retry-After', async () => {
    expect((await post(SLACK, { text: 'one' })).status).toBe(200);
    clock += 200;
    const limited = await post(SLACK, { text: 'two' });
    expect(limited).toMatchObject({ status: 429, text: 'rate_limited' });
    expect(limited.headers.get('retry-after')).toBe('1');
    clock += 800;
    expect((await post(SLACK, { text: 'three' })).status).toBe(200);
  });

  it('answers no_service (404) or channel_is_archived (410) for removed hooks', async () => {
    hooks.removeHook(SLACK, 404);
    expect(await post(SLACK, { text: 'x' })).toMatchObject({ status: 404, text: 'no_service' });
    hooks.removeHook(SLACK, 410);
    expect(await post(SLACK, { text: 'x' })).toMatchObject({ status: 410, text: 'channel_is_archived' });
    expect(log.list({ destination: SLACK, outcome: 'rejected' }).map((e) => e.status)).toEqual([404, 410]);
  });
});

describe('WebhookReceiver: other paths', () => {
  it('records any other hook body and answers 204', async () => {
    const res = await post('generic/alerts', { message: 'anything goes' });
    expect(res.status).toBe(204);
    expect(log.list({ destination: 'generic/alerts' })[0]).toMatchObject({ text: 'anything goes', source: 'generic' });
  });
});
