/**
 * `GET|PUT /api/v1/rms/config/:walletAddress` in-process on every database the test can reach (SQLite always,
 * PostgreSQL with TEST_POSTGRES_URL): defaults for unset fields, the account boundary (another account gets 404 and
 * its own configuration changes nothing of the owner's), one details[] entry per bad value.
 */
import { testDatabases } from '@rp/persistence';
import { type DeliveryHarness, startDeliveryHarness } from '../../test/delivery.int-support';

const { databases, skipped } = testDatabases('risk_config');
process.stdout.write(
  `risk configuration drivers: ${databases.map((d) => d.name).join(', ')}${skipped.map((s) => ` (${s})`).join('')}\n`,
);

describe.each(databases)('risk configurations on $name', ({ url, drop }) => {
  let h: DeliveryHarness;
  const path = (wallet: string) => `/api/v1/rms/config/${wallet}`;

  beforeAll(async () => {
    h = await startDeliveryHarness({ DATABASE_URL: url });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await drop();
  });

  it('stores what the account set, answers the effective configuration, and keeps it to the account', async () => {
    const wallet = h.wallet();
    const caller = h.caller({ account: `wallet:${wallet}` });
    expect((await h.call('GET', path(wallet), { caller })).status).toBe(404);

    const put = await h.call('PUT', path(wallet), {
      caller,
      body: { levels: { medium: 2, critical: 1.2 }, depegBps: 100 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      success: true,
      walletAddress: wallet,
      levels: { medium: 2, high: 1.25, critical: 1.2 },
      oracleMaxAgeSeconds: 300,
      utilizationWarnBps: 8000,
      utilizationAlertBps: 9000,
      depegBps: 100,
      defaults: ['levels.high', 'oracleMaxAgeSeconds', 'utilizationWarnBps', 'utilizationAlertBps'],
    });
    // Same account, another key: the same configuration.
    const again = await h.call('GET', path(wallet), { caller: h.caller({ account: caller.account }) });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(put.body);

    // Another account: 404, and its own configuration changes nothing of the owner's.
    const stranger = h.caller();
    expect((await h.call('GET', path(wallet), { caller: stranger })).status).toBe(404);
    const own = await h.call('PUT', path(wallet), { caller: stranger, body: { oracleMaxAgeSeconds: 60 } });
    expect(own.status).toBe(200);
    expect(own.body.levels).toEqual({ medium: 1.5, high: 1.25, critical: 1.1 });
    expect((await h.call('GET', path(wallet), { caller })).body).toEqual(put.body);

    // PUT replaces: what it leaves out is back at its default.
    const replaced = await h.call('PUT', path(wallet), { caller, body: { utilizationWarnBps: 5000 } });
    expect(replaced.body).toMatchObject({ levels: { medium: 1.5, high: 1.25, critical: 1.1 }, depegBps: 200 });
    expect(replaced.body.defaults).not.toContain('utilizationWarnBps');

    // Nothing set is the defaults: nothing stays stored, GET is 404 again.
    const reset = await h.call('PUT', path(wallet), { caller, body: { levels: {} } });
    expect(reset.status).toBe(200);
    expect(reset.body.defaults).toHaveLength(7);
    expect((await h.call('GET', path(wallet), { caller })).status).toBe(404);
  });

  it.each([
    [{ levels: { critical: 1 } }, ['levels.critical']],
    [{ levels: { medium: 1.3, high: 1.4 } }, ['levels.medium', 'levels.high']],
    [
      { levels: { high: 'high' }, depegBps: 0, oracleMaxAgeSeconds: -5 },
      ['levels.high', 'oracleMaxAgeSeconds', 'depegBps'],
    ],
    [{ utilizationWarnBps: 9000 }, ['utilizationWarnBps']],
    [{ levels: { low: 2 } }, ['levels.low']],
  ])('refuses %j with one details[] entry per bad value', async (body, fields) => {
    const answer = await h.call('PUT', path(h.wallet()), { caller: h.caller(), body });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, status: 400, code: 'VALIDATION_FAILED' });
    expect(answer.body.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });

  it('refuses a bad wallet address and needs an API key', async () => {
    const bad = await h.call('PUT', path('GBAD'), { caller: h.caller(), body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'walletAddress' })]);
    expect((await h.call('GET', path(h.wallet()))).status).toBe(401);
  });
});
