/**
 * `POST /api/v1/rms/notifications/trigger` against the sandbox: the admin key, one wallet or every watched wallet,
 * `minRiskLevel` in either vocabulary, and the cooldown skipped (a second trigger queues again).
 */
import { UNIT } from '@rp/sandbox';
import request from 'supertest';
import { type MonitorHarness, startMonitorHarness } from '../../test/monitor.int-support';

const ADMIN_KEY = 'admin-key-for-trigger-tests';

describe('admin trigger', () => {
  let h: MonitorHarness;
  let healthy: string[];
  let critical: string;

  beforeAll(async () => {
    h = await startMonitorHarness({ NOTIFICATIONS_ROLE: 'api', RMS_ADMIN_API_KEY: ADMIN_KEY });
    healthy = h.seedHealthy(3);
    critical = h.sandbox.control.setup.newAddresses(1)[0];
    h.sandbox.control.setup.openPosition(h.scenario.pool, {
      user: critical,
      supplyCollateral: [{ asset: h.scenario.xlm, amount: 1000n * UNIT }],
      borrow: [{ asset: h.scenario.usdc, amount: 210n * UNIT }],
    });
    await h.watch([...healthy, critical]);
  }, 60_000);

  afterAll(() => h?.close());

  const trigger = (body: unknown, key: string | null = ADMIN_KEY) => {
    const call = request(h.app.getHttpServer()).post('/api/v1/rms/notifications/trigger');
    return (key === null ? call : call.set('x-admin-key', key))
      .set('content-type', 'application/json')
      .send(JSON.stringify(body));
  };

  it('refuses a missing or wrong admin key with 403', async () => {
    for (const key of [null, 'wrong-admin-key-0000']) {
      const answer = await trigger({}, key);
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ success: false, code: 'INVALID_ADMIN_KEY' });
    }
  });

  it.each([
    [{ walletAddress: 'GABC' }, 'walletAddress'],
    [{ minRiskLevel: 'severe' }, 'minRiskLevel'],
    [{ minRiskLevel: 3 }, 'minRiskLevel'],
  ])('refuses %j with a field-level 400', async (body, field) => {
    const answer = await trigger(body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_FAILED');
    expect(answer.body.details).toEqual([expect.objectContaining({ field })]);
  });

  it('evaluates one wallet and queues its alert, again and again (no cooldown)', async () => {
    for (let i = 0; i < 2; i += 1) {
      const answer = await trigger({ walletAddress: critical });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true, evaluated: 1, alerts: 1, queued: 1 });
    }
  });

  it("evaluates every watched wallet; without minRiskLevel each wallet's channels decide", async () => {
    const answer = await trigger({});
    expect(answer.body).toEqual({ success: true, evaluated: 4, alerts: 1, queued: 1 });
  });

  it('takes minRiskLevel in either vocabulary and lets it replace the channels’ own minimum', async () => {
    expect((await trigger({ minRiskLevel: 'emergency' })).body).toMatchObject({ evaluated: 4, alerts: 1 });
    expect((await trigger({ minRiskLevel: 'healthy' })).body).toEqual({
      success: true,
      evaluated: 4,
      alerts: 4,
      queued: 4,
    });
  });

  it('takes a request without a body as "every watched wallet"', async () => {
    const answer = await request(h.app.getHttpServer())
      .post('/api/v1/rms/notifications/trigger')
      .set('x-admin-key', ADMIN_KEY);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, evaluated: 4 });
  });

  it('documents the risk route and the trigger in the OpenAPI document', async () => {
    const document = (await request(h.app.getHttpServer()).get('/openapi.json')).body as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    const risk = document.paths['/api/v1/rms/risk/{walletAddress}']?.['get'];
    const trigger = document.paths['/api/v1/rms/notifications/trigger']?.['post'];
    expect(Object.keys(risk?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '502', '503']));
    expect(JSON.stringify(risk?.responses['200'])).toContain('recommendedAction');
    expect(JSON.stringify(trigger?.requestBody)).toContain('TriggerRequest');
    expect(Object.keys(trigger?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '403', '503']));
  });

  it('evaluates nothing for a wallet nobody watches', async () => {
    const stranger = h.sandbox.control.setup.newAddresses(1)[0];
    expect((await trigger({ walletAddress: stranger })).body).toEqual({
      success: true,
      evaluated: 0,
      alerts: 0,
      queued: 0,
    });
  });
});
