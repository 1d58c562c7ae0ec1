/**
 * The health series on every database the test can reach (SQLite always, PostgreSQL with TEST_POSTGRES_URL, MongoDB
 * with TEST_MONGO_URL), on a store whose clock the test moves: round readings written one batch per call, rolled
 * up into hours and days (worst health factor, worst level, every trigger), read at the resolution the range picks
 * (the hours and days not rolled up yet made from the tier below), and each tier gone once its retention has passed.
 * Then the route in-process: the account boundary (404), bad ranges (400) and what the app's recorder wrote.
 */
import { type DocumentStore, openDocumentStore, parseDatabaseUrl, testDatabases } from '@rp/persistence';
import { Registry } from 'prom-client';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { RiskConfigRepository } from '../risk-config/risk-config.repository';
import { type DeliveryHarness, startDeliveryHarness } from '../../test/delivery.int-support';
import { AlertHistoryRepository } from './alert-history.repository';
import { HealthHistoryRepository } from './health-history.repository';
import { HealthRollups } from './health-rollups';
import { DAY_TIER, HOUR_TIER, type PositionReading, ROUND_TIER, tierFor } from './health-tiers';
import { HistoryMetrics } from './history-metrics';
import { HistoryReader } from './history-reader';
import { HistoryRecorder } from './history-recorder';

const { databases, skipped } = testDatabases('health_history');
process.stdout.write(
  `health history drivers: ${databases.map((d) => d.name).join(', ')}${skipped.map((s) => ` (${s})`).join('')}\n`,
);

const WALLET = 'GDKRZ4ZJU7VO3WDVLSNO6ZZL2YNCT6VEDQHFZSOXKIRJKVI3XMHYBDVM';
const P1 = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
const P2 = 'CDVQVKOY2YSXS2IC7KN6MNASSHPAO7UN2UR2ON4OI2SKMFJNVAMDX6DP';
const ACCOUNT = 'partner:history-test';
const t = (iso: string) => new Date(`2026-11-${iso}Z`);

describe.each(databases)('health history on $name', ({ url, drop }) => {
  let clock = t('20T10:00:00');
  let store: DocumentStore;
  let recorder: HistoryRecorder;
  let rollups: HealthRollups;
  let reader: HistoryReader;
  let health: HealthHistoryRepository;

  beforeAll(async () => {
    store = await openDocumentStore(parseDatabaseUrl(url, 'notifications'), { now: () => clock });
    health = new HealthHistoryRepository(store);
    const alerts = new AlertHistoryRepository(store);
    recorder = new HistoryRecorder(alerts, health, new HistoryMetrics(new Registry()));
    rollups = new HealthRollups(health);
    // Pages of two points: a bucket is read in several, points sharing a time across two of them.
    rollups.pageSize = 2;
    const channels = new NotificationConfigRepository(store);
    reader = new HistoryReader(alerts, health, channels, new RiskConfigRepository(store));
    await channels.upsert(ACCOUNT, WALLET, 'email', { enabled: true, minRiskLevel: 'high', email: 'h@example.com' });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await drop();
  });

  const reading = (
    pool: string,
    healthFactor: number | null,
    riskLevel: PositionReading['riskLevel'],
    triggers: string[] = [],
  ) => ({
    walletAddress: WALLET,
    poolAddress: pool,
    healthFactor,
    riskLevel,
    triggers,
  });
  const series = async (from: Date, to: Date) => {
    const answer = await reader.healthHistory(ACCOUNT, {
      walletAddress: WALLET,
      from,
      to,
      tier: tierFor(from, to, clock),
    });
    return {
      resolution: answer?.resolution,
      pools: Object.fromEntries(
        (answer?.series ?? []).map((s) => [
          s.poolAddress,
          s.points.map((p) => [p.at.slice(8, 16), p.healthFactor, p.riskLevel, p.triggers.join('+')]),
        ]),
      ),
    };
  };

  it('rolls rounds up into hours and days, reads at the range resolution, and drops each tier after its retention', async () => {
    await recorder.recordReadings(1, t('20T10:00:05'), [reading(P1, 1.6, 'low'), reading(P2, null, 'low')]);
    await recorder.recordReadings(2, t('20T10:20:00'), [reading(P1, 1.2, 'high', ['low_health_factor'])]);
    await recorder.recordReadings(3, t('20T10:40:00'), [
      reading(P1, 1.3, 'medium', ['low_health_factor', 'pool_on_ice']),
    ]);
    // The same batch job again (a retry) adds nothing.
    await recorder.recordReadings(3, t('20T10:40:00'), [reading(P1, 0.5, 'critical')]);
    await recorder.recordReadings(4, t('20T11:10:00'), [reading(P1, 1.5, 'low')]);
    await recorder.flush();

    // Every round, for a short recent range.
    clock = t('20T11:00:30');
    expect(await series(t('20T10:00:00'), t('20T11:30:00'))).toEqual({
      resolution: 'round',
      pools: {
        [P1]: [
          ['20T10:00', 1.6, 'low', ''],
          ['20T10:20', 1.2, 'high', 'low_health_factor'],
          ['20T10:40', 1.3, 'medium', 'low_health_factor+pool_on_ice'],
          ['20T11:10', 1.5, 'low', ''],
        ],
        [P2]: [['20T10:00', null, 'low', '']],
      },
    });
    // Inside the grace minute the hour is not rolled up yet; after it, once, whatever the number of runs.
    expect(await rollups.rollUp(clock)).toEqual({ hour: 0, day: 0 });
    clock = t('20T11:01:01');
    expect(await rollups.rollUp(clock)).toEqual({ hour: 2, day: 0 });
    expect(await rollups.rollUp(clock)).toEqual({ hour: 0, day: 0 });
    const hourly = [
      ['20T10:00', 1.2, 'high', 'low_health_factor+pool_on_ice'],
      ['20T11:00', 1.5, 'low', ''],
    ];
    // Hourly for a longer range: the rolled-up hour, and the current one made from its rounds.
    expect(await series(t('19T12:00:00'), t('20T12:00:00'))).toEqual({
      resolution: 'hour',
      pools: { [P1]: hourly, [P2]: [['20T10:00', null, 'low', '']] },
    });

    // A day later the first round has gone; two days later every round has.
    clock = t('21T10:00:06');
    expect(
      (
        await health.between(ROUND_TIER, { walletAddress: WALLET, poolAddress: P1, from: t('20T00:00:00'), to: clock })
      ).map((p) => p.healthFactor),
    ).toEqual([1.5, 1.3, 1.2]);
    // The janitor runs every minute: the last round's hour is rolled up before its rounds expire, and the closed day.
    expect(await rollups.rollUp(clock)).toEqual({ hour: 1, day: 2 });
    clock = t('22T00:01:01');
    expect(await health.between(ROUND_TIER, { walletAddress: WALLET, from: t('20T00:00:00'), to: clock })).toEqual([]);
    expect(await rollups.rollUp(clock)).toEqual({ hour: 0, day: 0 });
    expect(await series(t('19T12:00:00'), t('20T12:00:00'))).toMatchObject({
      resolution: 'hour',
      pools: { [P1]: hourly },
    });

    // 30 days on the hours have gone; the day stays, for a year.
    clock = new Date(t('20T11:00:01').getTime() + 30 * 86_400_000);
    expect(await health.between(HOUR_TIER, { walletAddress: WALLET, from: t('01T00:00:00'), to: clock })).toEqual([]);
    const daily = await series(t('19T00:00:00'), clock);
    expect(daily).toEqual({
      resolution: 'day',
      pools: {
        [P1]: [['20T00:00', 1.2, 'high', 'low_health_factor+pool_on_ice']],
        [P2]: [['20T00:00', null, 'low', '']],
      },
    });
    clock = new Date(t('20T00:00:01').getTime() + 365 * 86_400_000);
    expect(await health.between(DAY_TIER, { walletAddress: WALLET, from: t('01T00:00:00'), to: clock })).toEqual([]);
  });
});

describe('the health history route', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness();
  }, 60_000);
  afterAll(() => h?.close());

  const path = (wallet: string, query = '') => `/api/v1/rms/history/${wallet}${query}`;

  it("answers the account's wallet with what the recorder wrote, and another account 404", async () => {
    const caller = h.caller();
    const wallet = h.wallet();
    const body = { walletAddress: wallet, email: 'route@example.com', minRiskLevel: 'high' };
    expect((await h.call('POST', '/api/v1/rms/notifications/email', { caller, body })).status).toBe(201);
    const at = new Date(Date.now() - 60_000);
    const recorder = h.app.get(HistoryRecorder);
    await recorder.recordReadings(7, at, [
      {
        walletAddress: wallet,
        poolAddress: P1,
        healthFactor: 1.21,
        riskLevel: 'high',
        triggers: ['low_health_factor'],
      },
    ]);
    await recorder.flush();

    const answer = await h.call('GET', path(wallet), { caller });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, walletAddress: wallet, resolution: 'round' });
    expect(answer.body.series).toEqual([
      {
        poolAddress: P1,
        points: [{ at: at.toISOString(), healthFactor: 1.21, riskLevel: 'high', triggers: ['low_health_factor'] }],
      },
    ]);
    expect((await h.call('GET', path(wallet, `?poolAddress=${P2}`), { caller })).body.series).toEqual([]);

    const stranger = await h.call('GET', path(wallet), { caller: h.caller() });
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.body)).not.toContain('1.21');
    expect((await h.call('GET', path(wallet))).status).toBe(401);
  });

  it.each([
    ['?from=2026-11-20T10:00:00Z&to=2026-11-20T10:00:00Z', ['from']],
    ['?from=2020-01-01T00:00:00Z&to=2026-11-20T00:00:00Z', ['from']],
    ['?from=yesterday&to=now', ['from', 'to']],
    ['?poolAddress=CBAD', ['poolAddress']],
    ['?resolution=hour', ['resolution']],
  ])('refuses %s with one details[] entry per bad value', async (query, fields) => {
    const answer = await h.call('GET', path(h.wallet(), query), { caller: h.caller() });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, status: 400, code: 'VALIDATION_FAILED' });
    expect(answer.body.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });
});
