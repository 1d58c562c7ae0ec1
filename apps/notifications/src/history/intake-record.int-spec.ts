/**
 * The intake's outcomes travel inside the alert's record (one write per intake batch, not two), on every database
 * the test can reach: the history still shows each channel queued or suppressed, then delivered, and alerts recorded
 * before (intake outcomes as outcome records of their own) read as they did.
 */
import type { RiskAlert } from '@rp/contracts';
import { type DocumentStore, openDocumentStore, parseDatabaseUrl, testDatabases } from '@rp/persistence';
import { Registry } from 'prom-client';
import { alertFor } from '../../test/delivery.int-support';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import type { DeliveryJobData } from '../delivery/delivery-job';
import { RiskConfigRepository } from '../risk-config/risk-config.repository';
import { ALERT_RECORDS, OUTCOME_RECORDS } from './alert-history-records';
import { AlertHistoryRepository } from './alert-history.repository';
import { HealthHistoryRepository } from './health-history.repository';
import { HistoryMetrics } from './history-metrics';
import { HistoryReader } from './history-reader';
import { HistoryRecorder } from './history-recorder';

const { databases } = testDatabases('intake_record');

const WALLET = 'GDKRZ4ZJU7VO3WDVLSNO6ZZL2YNCT6VEDQHFZSOXKIRJKVI3XMHYBDVM';
const POOL = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
const ACCOUNT = 'partner:intake-record';

describe.each(databases)('intake outcomes inside the alert record on $name', ({ url, drop }) => {
  let store: DocumentStore;
  let configs: NotificationConfigRepository;
  let alerts: AlertHistoryRepository;
  let recorder: HistoryRecorder;
  let reader: HistoryReader;

  beforeAll(async () => {
    store = await openDocumentStore(parseDatabaseUrl(url, 'notifications'));
    configs = new NotificationConfigRepository(store);
    alerts = new AlertHistoryRepository(store);
    const health = new HealthHistoryRepository(store);
    recorder = new HistoryRecorder(alerts, health, new HistoryMetrics(new Registry()));
    reader = new HistoryReader(alerts, health, configs, new RiskConfigRepository(store));
  }, 60_000);
  afterAll(async () => {
    await recorder?.flush();
    await store?.close();
    await drop();
  });

  const channelsOf = async (alertId: string) => {
    const answer = await reader.alertHistory(ACCOUNT, { walletAddress: WALLET });
    const entry = answer?.alerts.find((a) => a.alertId === alertId);
    return Object.fromEntries((entry?.channels ?? []).map((c) => [c.channel, c.outcome]));
  };

  it('writes no outcome record at intake, shows queued and suppressed, then the delivery', async () => {
    const fields = { enabled: true, minRiskLevel: 'high' as const };
    const hook = await configs.upsert(ACCOUNT, WALLET, 'channelhook', { ...fields, webhookUrl: 'sealed' });
    const mail = await configs.upsert(ACCOUNT, WALLET, 'email', { ...fields, email: 'a@example.com' });
    const alert = alertFor(WALLET, { alertId: 'alert-intake-1', poolAddress: POOL }) as RiskAlert;

    await recorder.recordAlerts([{ alert, source: 'webhook', queued: [hook], suppressed: [mail] }]);
    const outcomeRecords = await store.collection(OUTCOME_RECORDS);
    expect(await outcomeRecords.count({ alertId: alert.alertId })).toBe(0);
    expect(await (await store.collection(ALERT_RECORDS)).count({ id: alert.alertId })).toBe(1);
    expect(await channelsOf(alert.alertId)).toEqual({ channelhook: 'queued', email: 'suppressed' });

    const job = { alert, source: 'webhook', channel: 'channelhook', configId: hook.id } as DeliveryJobData;
    recorder.recordDelivery(job, 'delivered');
    await recorder.flush();
    expect(await outcomeRecords.count({ alertId: alert.alertId })).toBe(1);
    expect(await channelsOf(alert.alertId)).toEqual({ channelhook: 'delivered', email: 'suppressed' });
  });

  it('reads an alert recorded before, whose intake outcomes are outcome records of their own', async () => {
    const hook = (await configs.forAccount(ACCOUNT, WALLET)).find((c) => c.channel === 'channelhook');
    const evaluatedAt = new Date(Date.now() - 60_000);
    const expiresAt = new Date(evaluatedAt.getTime() + 86_400_000);
    const alertId = 'alert-before-intake-records';
    await alerts.addAlerts([
      {
        id: alertId,
        walletAddress: WALLET,
        poolAddress: POOL,
        riskLevel: 'high',
        levelRank: 2,
        triggers: ['low_health_factor'],
        healthFactor: 1.2,
        evaluatedAt,
        source: 'webhook',
        expiresAt,
      },
    ]);
    const common = { alertId, configId: hook?.id ?? '', walletAddress: WALLET, channel: 'channelhook' as const };
    await alerts.addOutcomes([
      {
        ...common,
        id: `${alertId}:${common.configId}:queued`,
        outcome: 'queued',
        at: evaluatedAt,
        evaluatedAt,
        expiresAt,
      },
    ]);
    expect(await channelsOf(alertId)).toEqual({ channelhook: 'queued' });
  });
});
