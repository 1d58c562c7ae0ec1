/**
 * The queue dashboard (bull-board) on the notifications API against the test Redis: every route of it refused
 * without the admin key, in the platform's error envelope; with it (header or Basic auth) the delivery and monitor
 * queues are listed by bull-board's own API, with the job counts BullMQ keeps.
 */
import { ADMIN_KEY, type DeliveryHarness, startDeliveryHarness } from '../../test/delivery.int-support';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { DELIVERY_QUEUE } from '../delivery/delivery-job';
import { MONITOR_QUEUE } from '../monitor/monitor-job';
import { QUEUE_BOARD_PATH } from './queue-board';

const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;

describe('the queue dashboard', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness();
  }, 60_000);
  afterAll(() => h?.close());

  it.each<['GET' | 'POST', string]>([
    ['GET', '/api/queues'],
    ['GET', ''],
    ['GET', '/static/images/logo.svg'],
    ['GET', '/api/redis/stats'],
    ['POST', `/api/queues/${DELIVERY_QUEUE}/add`],
  ])(
    'refuses %s %s without the admin key: 401 in the envelope, with a Basic challenge for browsers',
    async (method, path) => {
      const answer = await h.call(
        method,
        `${QUEUE_BOARD_PATH}${path}`,
        method === 'POST' ? { body: { name: 'x' } } : {},
      );
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Basic realm=/);
      expect(answer.body).toMatchObject({ success: false, status: 401, code: 'ADMIN_KEY_REQUIRED' });
      expect(answer.body.requestId).toBeTruthy();
    },
  );

  it('refuses a wrong admin key, by header or Basic auth, with 403 INVALID_ADMIN_KEY', async () => {
    for (const headers of [
      { 'x-admin-key': 'wrong-admin-key-000000' },
      { authorization: basic('wrong-key-0000') },
    ] as Record<string, string>[]) {
      const answer = await h.call('GET', `${QUEUE_BOARD_PATH}/api/queues`, { headers });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ success: false, code: 'INVALID_ADMIN_KEY' });
      expect(JSON.stringify(answer.body)).not.toContain(ADMIN_KEY);
    }
  });

  it('lists the delivery and monitor queues with the admin key, with the jobs waiting in them', async () => {
    const deliveries = h.app.get(DeliveryQueue).queue;
    await deliveries.pause();
    await deliveries.add('telegram', { board: true }, { jobId: `board-${Date.now()}` });
    try {
      for (const headers of [{ 'x-admin-key': ADMIN_KEY }, { authorization: basic(ADMIN_KEY) }] as Record<
        string,
        string
      >[]) {
        const answer = await h.call('GET', `${QUEUE_BOARD_PATH}/api/queues?activeQueue=${DELIVERY_QUEUE}`, {
          headers,
        });
        expect(answer.status).toBe(200);
        const queues = answer.body.queues as { name: string; counts: Record<string, number> }[];
        expect(queues.map((queue) => queue.name).sort()).toEqual([DELIVERY_QUEUE, MONITOR_QUEUE].sort());
        const delivery = queues.find((queue) => queue.name === DELIVERY_QUEUE)!;
        expect((delivery.counts['paused'] ?? 0) + (delivery.counts['waiting'] ?? 0)).toBeGreaterThanOrEqual(1);
      }
      const page = await h.call('GET', QUEUE_BOARD_PATH, { headers: { authorization: basic(ADMIN_KEY) } });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
    } finally {
      await deliveries.obliterate({ force: true });
      await deliveries.resume();
    }
  });

  it("answers bad input to bull-board's own routes in the platform's envelope, never a 500", async () => {
    const answer = await h.call('POST', `${QUEUE_BOARD_PATH}/api/queues/${DELIVERY_QUEUE}/add`, {
      headers: { 'x-admin-key': ADMIN_KEY },
      body: '{"name": ',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, status: 400, code: 'MALFORMED_JSON' });
  });

  it('answers a body that fails to decompress (the platform decoder) in the envelope on its routes too', async () => {
    const answer = await h.call('POST', `${QUEUE_BOARD_PATH}/api/queues/${DELIVERY_QUEUE}/add`, {
      headers: { 'x-admin-key': ADMIN_KEY, 'content-encoding': 'gzip' },
      body: 'not gzip at all',
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body).toMatchObject({ success: false, status: answer.status });
    expect(typeof answer.body.code).toBe('string');
  });
});
