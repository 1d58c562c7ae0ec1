/**
 * `POST /api/v1/rms/events`: an account's event for one of its wallets, through the delivery pipeline (BullMQ on the
 * test Redis) to the sandbox's Telegram, Discord/Slack and SMTP stand-ins. Only the calling account's own channels
 * of that wallet receive it; the same event id is taken once; repeating types pass a cooldown, closes never wait;
 * a failing channel dead-letters it like any alert.
 */
import type { CallerIdentity } from '@rp/contracts';
import {
  ADMIN_KEY,
  type DeliveryHarness,
  type LogFilter,
  startDeliveryHarness,
} from '../../test/delivery.int-support';

const BASE = '/api/v1/rms/notifications';
const EVENTS = '/api/v1/rms/events';
const POOL = 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA';
const TX = 'a'.repeat(64);
let chats = 7_000_000;
let ids = 0;

describe('account events', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness();
  }, 60_000);
  afterAll(() => h?.close());

  /** An account (a caller) with the three channels of `wallet` registered, and where they send. */
  async function owner(wallet: string, email = `${Math.random().toString(36).slice(2)}@example.com`) {
    const caller = h.caller({ email });
    chats += 1;
    const chatId = String(chats);
    const hook = h.hookUrl();
    const mail = `${chatId}@example.com`;
    for (const [path, body] of [
      ['messenger', { walletAddress: wallet, messengerChatId: chatId }],
      ['channelhook', { walletAddress: wallet, channelWebhook: hook }],
      ['email', { walletAddress: wallet, email: mail }],
    ] as const) {
      expect((await h.call('POST', `${BASE}/${path}`, { caller, body })).status).toBe(201);
    }
    const filters: LogFilter[] = [
      { channel: 'telegram', destination: chatId },
      { channel: 'webhook', destination: new URL(hook).pathname.replace(/^\/hooks\//, '') },
      { channel: 'email', destination: mail },
    ];
    return { caller, chatId, hook, mail, filters };
  }

  const event = (wallet: string, fields: Record<string, unknown> = {}) => ({
    eventId: `evt-${Date.now()}-${(ids += 1)}`,
    type: 'close_confirmed',
    walletAddress: wallet,
    occurredAt: new Date().toISOString(),
    poolAddress: POOL,
    healthFactorBefore: 1.0421,
    healthFactorAfter: null,
    txHash: TX,
    ...fields,
  });
  const send = (caller: CallerIdentity, body: unknown) => h.call('POST', EVENTS, { caller, body });

  it("delivers the event to each of the account's channels once, readable, and takes the same id once", async () => {
    const wallet = h.wallet();
    const o = await owner(wallet);
    const body = event(wallet);
    const answer = await send(o.caller, body);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      success: true,
      eventId: body.eventId,
      queued: ['messenger', 'channelhook', 'email'],
      suppressed: [],
    });
    for (const filter of o.filters) {
      const [message] = await h.waitForMessages({ ...filter, outcome: 'delivered' }, 1);
      expect(message?.text).toContain('close is confirmed on the ledger');
      expect(message?.text).toContain('1.0421');
      expect(message?.text).toContain('none (no debt)');
      expect(message?.text).toContain(TX);
      expect(message?.text).toContain(body.eventId);
    }
    // The agent lost the answer and sends it again: taken once.
    const again = await send(o.caller, body);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ duplicate: true, queued: [] });
    const later = event(wallet, { type: 'close_sent' });
    await send(o.caller, later);
    for (const filter of o.filters) await h.waitForMessages({ ...filter, outcome: 'delivered' }, 2);
    for (const filter of o.filters) {
      expect(h.messages({ ...filter, outcome: 'delivered' }).filter((m) => m.text.includes(body.eventId))).toHaveLength(1);
    }
  }, 60_000);

  it("reaches only the calling account's channels of that wallet: another account's get nothing", async () => {
    const wallet = h.wallet();
    const mine = await owner(wallet);
    const theirs = await owner(wallet);
    const body = event(wallet, { type: 'close_failed', detail: 'the ledger refused the close: txBadSeq' });
    expect((await send(mine.caller, body)).body.queued).toEqual(['messenger', 'channelhook', 'email']);
    for (const filter of mine.filters) await h.waitForMessages({ ...filter, outcome: 'delivered' }, 1);
    // A caller with no channel for the wallet: taken, nothing queued, and not to the owners of the wallet.
    const stranger = h.caller({ email: 'stranger@example.com' });
    expect((await send(stranger, event(wallet))).body).toMatchObject({ queued: [], suppressed: [] });
    // The other account's event goes to its own channels, never to mine: every channel of theirs has exactly one.
    const second = event(wallet, { type: 'close_sent' });
    expect((await send(theirs.caller, second)).body.queued).toHaveLength(3);
    for (const filter of theirs.filters) await h.waitForMessages({ ...filter, outcome: 'delivered' }, 1);
    for (const filter of theirs.filters) {
      expect(h.messages(filter).map((m) => m.text.includes(second.eventId))).toEqual([true]);
    }
    for (const filter of mine.filters) {
      expect(h.messages(filter).map((m) => m.text.includes(body.eventId))).toEqual([true]);
    }
    // The same id from two accounts is two events (ids are the caller's own).
    expect((await send(theirs.caller, { ...body })).body.duplicate).toBeUndefined();
  }, 60_000);

  it('holds back a repeating type inside its cooldown, never a close', async () => {
    const wallet = h.wallet();
    const o = await owner(wallet);
    const refused = (reason: string) => event(wallet, { type: 'refused', source: 'payment', reason, txHash: undefined });
    expect((await send(o.caller, refused('wrong_pay_to'))).body.queued).toHaveLength(3);
    expect((await send(o.caller, refused('wrong_asset'))).body).toMatchObject({
      queued: [],
      suppressed: ['messenger', 'channelhook', 'email'],
    });
    expect((await send(o.caller, event(wallet, { type: 'close_sent' }))).body.queued).toHaveLength(3);
    expect((await send(o.caller, event(wallet, { type: 'close_sent' }))).body.queued).toHaveLength(3);
  });

  it('dead-letters an event whose channel fails for good, under its delivery id', async () => {
    const wallet = h.wallet();
    const o = await owner(wallet);
    const path = new URL(o.hook).pathname.replace(/^\/hooks\//, '');
    h.sandbox.channels.webhooks.removeHook(path, 410);
    const body = event(wallet, { type: 'subscription_lapsed', reason: 'expired', txHash: undefined });
    expect((await send(o.caller, body)).status).toBe(202);
    let entry: { alertId: string; walletAddress: string; channel: string; lastError: string } | undefined;
    for (let i = 0; i < 300 && !entry; i += 1) {
      const dlq = await h.call('GET', `${BASE}/dlq`, { headers: { 'x-admin-key': ADMIN_KEY } });
      entry = dlq.body.latest.find((e: { walletAddress: string }) => e.walletAddress === wallet);
      if (!entry) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(entry).toMatchObject({ channel: 'channelhook', alertId: expect.stringMatching(/^event-[0-9a-f]{32}$/) });
    expect(entry?.lastError).toMatch(/webhook 4(04|10)/);
    // The other channels delivered it.
    await h.waitForMessages({ ...o.filters[0], outcome: 'delivered' }, 1);
    await h.waitForMessages({ ...o.filters[2], outcome: 'delivered' }, 1);
  }, 60_000);

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown type', { type: 'close_maybe' }, 'type'],
    ['a wallet that is not an account', { walletAddress: POOL }, 'walletAddress'],
    ['an event id with spaces', { eventId: 'a b' }, 'eventId'],
    ['a transaction hash that is not one', { txHash: 'xyz' }, 'txHash'],
    ['a detail with control characters', { detail: 'line\u0007bell' }, 'detail'],
    ['a detail longer than 300 characters', { detail: 'x'.repeat(301) }, 'detail'],
    ['a health factor in text', { healthFactorBefore: '1.2' }, 'healthFactorBefore'],
    ['a field that does not exist', { accountId: 'email:someone@example.com' }, 'accountId'],
  ])('refuses %s with a 400 naming the field, queueing nothing', async (_case, change, field) => {
    const wallet = h.wallet();
    const o = await owner(wallet);
    const answer = await send(o.caller, event(wallet, change));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(answer.body.details)).toContain(field);
    expect(h.messages(o.filters[0])).toEqual([]);
  });

  it('needs a key (the gateway sends the caller): without one, 401', async () => {
    const wallet = h.wallet();
    const answer = await h.call('POST', EVENTS, { body: event(wallet) });
    expect(answer.status).toBe(401);
  });

  it('is documented in the OpenAPI document: the body, the 202 answer, what it reaches', async () => {
    // Signed like the gateway's own fetch of it (the harness sets INTERNAL_TOKEN).
    const document = (await h.call('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { description?: string; requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    const route = document.paths[EVENTS]?.['post'];
    expect(JSON.stringify(route?.requestBody)).toContain('AccountEventRequest');
    expect(Object.keys(route?.responses ?? {})).toEqual(expect.arrayContaining(['202', '400', '401']));
    expect(JSON.stringify(route?.responses['202'])).toContain('suppressed');
    expect(route?.description).toContain("never to another account's");
    expect(route?.description).toContain('taken once');
  });
});
