/**
 * Alerts taken in batches (ADR 028), in-process on the test Redis and SQLite with the sandbox's stand-ins: a batch
 * costs one round trip for its cooldown and once-per-id decisions, a mixed batch gives the outcomes of the same
 * alerts taken one by one (and queues the same jobs, one per alert, delivered once), and concurrent webhook requests, coalesced
 * into micro-batches, each get their own answer.
 */
import type { Channel, RiskAlert } from '@rp/contracts';
import { RedisClient } from '@rp/platform';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { deliveryJobId } from '../delivery/delivery-job';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { FAN_OUT_JOB, type FanOutJobData } from '../delivery/fan-out-job';
import { type DeliveryHarness, WEBHOOK_SECRET, alertFor, startDeliveryHarness } from '../../test/delivery.int-support';
import type { IntakeEntry, IntakeOptions, IntakeResult } from './alert';
import { AlertIntake } from './alert-intake.service';
import { INTAKE_DECISIONS_SCRIPT } from './cooldown';

const BASE = '/api/v1/rms/notifications';
/** Long enough that requests sent together surely share a batch on a busy machine. */
const BATCH_WAIT_MS = 100;
let chats = 7_000_000;

type Minimums = Partial<Record<Channel, string>>;

describe('alert intake in batches', () => {
  let h: DeliveryHarness;
  let intake: AlertIntake;
  let decisions = 0;

  beforeAll(async () => {
    h = await startDeliveryHarness({ NOTIFICATIONS_INTAKE_BATCH_WAIT_MS: String(BATCH_WAIT_MS) });
    intake = h.app.get(AlertIntake);
    // Counts the decision script's runs on the client the intake uses (EVALSHA, or EVAL on its first use).
    const redis = h.app.get(RedisClient);
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: Parameters<typeof send>[0], stream?: Parameters<typeof send>[1]) => {
      const first = command.args[0];
      const script = typeof first === 'string' ? first : first?.toString();
      if (script === INTAKE_DECISIONS_SCRIPT.sha || script === INTAKE_DECISIONS_SCRIPT.source) decisions += 1;
      return send(command, stream);
    }) as typeof redis.sendCommand;
  }, 60_000);
  afterAll(() => h?.close());

  /** A wallet with the three channels registered at these minimums (`low` when not given), and its chat id. */
  async function registered(minimums: Minimums = {}) {
    const caller = h.caller();
    const wallet = h.wallet();
    chats += 1;
    const chatId = String(chats);
    for (const [path, body] of [
      ['messenger', { walletAddress: wallet, messengerChatId: chatId, minRiskLevel: minimums.messenger ?? 'low' }],
      [
        'channelhook',
        { walletAddress: wallet, channelWebhook: h.hookUrl(), minRiskLevel: minimums.channelhook ?? 'low' },
      ],
      ['email', { walletAddress: wallet, email: `${chatId}@example.com`, minRiskLevel: minimums.email ?? 'low' }],
    ] as const) {
      expect((await h.call('POST', `${BASE}/${path}`, { caller, body })).status).toBe(201);
    }
    return { wallet, chatId };
  }

  const riskAlert = (wallet: string, alertId: string, riskLevel: string, triggers = ['low_health_factor']) =>
    alertFor(wallet, { alertId, riskLevel, triggers }) as unknown as RiskAlert;

  /** Mixed: cooldown hits, a worse level, a new trigger, alertIds twice, per-channel minimums, urgent, trigger. */
  function mixedBatch(tag: string, w0: string, w1: string): IntakeEntry[] {
    const monitor: IntakeOptions = { source: 'monitor' };
    const once: IntakeOptions = { source: 'webhook', acceptOnce: true };
    const entry = (wallet: string, id: string, level: string, options: IntakeOptions, triggers?: string[]) => ({
      alert: riskAlert(wallet, `${tag}-${id}`, level, triggers),
      options,
    });
    return [
      entry(w0, 'a', 'high', monitor),
      entry(w0, 'b', 'high', monitor),
      entry(w0, 'a', 'high', monitor),
      entry(w0, 'c', 'critical', monitor),
      entry(w0, 'd', 'critical', monitor, ['low_health_factor', 'pool_frozen']),
      entry(w0, 'e', 'critical', { ...once, channels: ['email'] }),
      entry(w0, 'e', 'critical', { ...once, channels: ['email'] }),
      entry(w1, 'f', 'medium', once),
      entry(w1, 'f', 'medium', once),
      entry(w1, 'g', 'high', monitor),
      entry(w1, 'h', 'critical', { ...once, bypassCooldown: true }),
      entry(w1, 'i', 'low', monitor),
      entry(w1, 'j', 'low', { source: 'trigger', bypassCooldown: true, minRiskLevel: 'low' }),
    ];
  }
  const W1_MINIMUMS: Minimums = { messenger: 'high', channelhook: 'medium', email: 'critical' };
  const ALL = ['messenger', 'channelhook', 'email'];
  const EXPECTED = [
    { queued: ALL, suppressed: [] }, // a: the first
    { queued: [], suppressed: ALL }, // b: same level inside a's cooldown
    { queued: ALL, suppressed: [] }, // a again: the alert that started the cooldown (same jobs)
    { queued: ALL, suppressed: [] }, // c: worse level
    { queued: ALL, suppressed: [] }, // d: pool_frozen is news
    { queued: [], suppressed: ['email'] }, // e: inside d's cooldown, routed to email only
    { queued: [], suppressed: [], duplicate: true }, // e again: taken once
    { queued: ['channelhook'], suppressed: ['messenger', 'email'] }, // f: the channels' minimums
    { queued: [], suppressed: [], duplicate: true }, // f again
    { queued: ['messenger', 'channelhook'], suppressed: ['email'] }, // g: worse than f
    { queued: ALL, suppressed: [] }, // h: urgent
    { queued: [], suppressed: ALL }, // i: below every minimum
    { queued: ALL, suppressed: [] }, // j: the trigger's minimum and no cooldown
  ];
  const withoutId = (result: IntakeResult) => {
    const { alertId, ...rest } = result;
    expect(alertId).toMatch(/^(one|batch)-[a-j]$/);
    return rest;
  };

  it('gives a mixed batch the outcomes of its alerts taken one by one, in one round trip, and queues their jobs once', async () => {
    const [a0, a1] = [await registered(), await registered(W1_MINIMUMS)];
    const [b0, b1] = [await registered(), await registered(W1_MINIMUMS)];
    const oneByOne: IntakeResult[] = [];
    for (const { alert, options } of mixedBatch('one', a0.wallet, a1.wallet)) {
      oneByOne.push(await intake.submit(alert, options));
    }
    expect(oneByOne.map(withoutId)).toEqual(EXPECTED);

    const entries = mixedBatch('batch', b0.wallet, b1.wallet);
    const before = decisions;
    const outcomes = await intake.submitBatch(entries);
    expect(decisions - before).toBe(1);
    expect(outcomes.map((o) => withoutId(o.result))).toEqual(EXPECTED);
    expect(outcomes.map((o) => o.alert)).toEqual(entries.map((e) => e.alert));

    // Every queued (alert, channel) has its delivery id; the alert taken twice is one delivery per channel.
    const configs = h.app.get(NotificationConfigRepository);
    const queue = h.app.get(DeliveryQueue).queue;
    const byChannel = new Map<string, string>();
    for (const wallet of [b0.wallet, b1.wallet]) {
      for (const c of await configs.enabledFor(wallet)) byChannel.set(`${wallet}|${c.channel}`, c.id);
    }
    const jobIds = new Set(
      outcomes.flatMap(({ alert, result }) =>
        result.queued.map((ch) => deliveryJobId(alert.alertId, ch, byChannel.get(`${alert.address}|${ch}`) ?? '')),
      ),
    );
    expect(jobIds.size).toBe(3 * 3 + 1 + 2 + 3 + 3); // b0: a, c, d; b1: f, g, h, j
    // One job per alert (ADR 035): a fan-out job carrying its deliveries, or the delivery job of its only channel.
    const batchIds = new Set(outcomes.map((o) => o.alert.alertId));
    const jobs = (await queue.getJobs(['waiting', 'delayed', 'active', 'completed'])).filter((job) =>
      batchIds.has((job.data as { alert?: RiskAlert }).alert?.alertId ?? ''),
    );
    const fanOuts = jobs.filter((job) => job.name === FAN_OUT_JOB).map((job) => job.data as FanOutJobData);
    expect(fanOuts).toHaveLength(6); // a, c, d, g, h, j; f has one channel
    const carried = new Set([
      ...fanOuts.flatMap((data) => data.entries.map((entry) => entry.jobId)),
      ...jobs.filter((job) => job.name !== FAN_OUT_JOB).map((job) => job.id),
    ]);
    for (const id of jobIds) expect(carried.has(id)).toBe(true);
    // b0's chat gets a, c and d once each (paced one a second), nothing twice.
    const delivered = await h.waitForMessages({ channel: 'telegram', destination: b0.chatId }, 3, 60_000);
    expect(delivered.filter((m) => m.outcome === 'delivered').map((m) => /batch-[a-j]/.exec(m.text)?.[0])).toEqual([
      'batch-a',
      'batch-c',
      'batch-d',
    ]);
  }, 120_000);

  it('answers concurrent webhook requests each with its own outcome, taken in together', async () => {
    const minimums: Minimums[] = [{}, W1_MINIMUMS, { messenger: 'critical', channelhook: 'critical', email: 'low' }];
    const wallets = [];
    for (let i = 0; i < 12; i += 1) wallets.push(await registered(minimums[i % 3]));
    // Wallet 0 already has its cooldown started, and an alert id the burst repeats.
    const seen = `burst-seen-${Date.now()}`;
    const webhook = (body: unknown) =>
      h.call('POST', `${BASE}/webhook`, { body, headers: { 'x-webhook-secret': WEBHOOK_SECRET } });
    expect((await webhook({ source: 'ops', alert: riskAlert(wallets[0].wallet, seen, 'critical') })).status).toBe(202);

    const levels = ['medium', 'high', 'critical'];
    const requests = wallets.map(({ wallet }, i) => ({
      source: 'ops',
      alert: riskAlert(wallet, i === 0 ? seen : `burst-${i}-${Date.now()}`, levels[i % 3]),
      routing: i % 4 === 3 ? { channels: ['channelhook', 'email'] } : undefined,
    }));
    requests.push({
      source: 'ops',
      alert: riskAlert(wallets[0].wallet, `burst-held-${Date.now()}`, 'high'),
      routing: undefined,
    });
    const expected = requests.map(({ alert, routing }, i) => {
      if (i === 0) return { queued: [], suppressed: [], duplicate: true };
      if (i === requests.length - 1) return { queued: [], suppressed: ALL }; // inside wallet 0's critical cooldown
      const wanted = routing?.channels ?? ALL;
      const minimum = minimums[i % 3];
      const rank = (level: string) => ['low', 'medium', 'high', 'critical'].indexOf(level);
      const queued = wanted.filter((c) => rank(alert.riskLevel) >= rank(minimum[c as Channel] ?? 'low'));
      return { queued, suppressed: wanted.filter((c) => !queued.includes(c)) };
    });

    const before = decisions;
    const answers = await Promise.all(requests.map((body) => webhook(body)));
    const batches = decisions - before;
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({ success: true, alertId: requests[i].alert.alertId, ...expected[i] });
    });
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThan(requests.length);
  }, 120_000);
});
