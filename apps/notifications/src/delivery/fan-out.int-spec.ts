/**
 * One job per alert (ADR 035), in-process on the test Redis and SQLite with the sandbox's stand-ins: an alert to
 * three channels is one job; a retaken fan-out job sends nothing twice; a 429 hands the delivery over, delayed by
 * its retry-after; a failing channel gets the attempts left, then the DLQ (and five again once re-driven), while the
 * others are delivered once; an entry behind another in its lane is handed over and delivered in the lane's order.
 */
import type { RiskAlert } from '@rp/contracts';
import { DelayedError, type Job } from 'bullmq';
import {
  ADMIN_KEY,
  BOT_TOKEN,
  type DeliveryHarness,
  alertFor,
  registerThreeChannels,
  startDeliveryHarness,
} from '../../test/delivery.int-support';
import { AlertIntake } from '../alerts/alert-intake.service';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { DELIVERY_ATTEMPTS, deliveryJobId } from './delivery-job';
import { DeliveryQueue } from './delivery-queue';
import { FAN_OUT_JOB, type FanOutJobData } from './fan-out-job';
import { FanOutProcessor } from './fan-out.processor';
import { DestinationLanes } from './destination-lanes';
import { DeliveryProcessor } from './delivery.processor';

let chats = 9_000_000;
const nextChat = () => String((chats += 1));
const riskAlert = (wallet: string, overrides: Record<string, unknown> = {}) =>
  alertFor(wallet, overrides) as unknown as RiskAlert;
const OTHER_POOL = 'CDVQVKOY2YSXS2IC7KN6MNASSHPAO7UN2UR2ON4OI2SKMFJNVAMDX6DP';
const STATES = ['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized'] as const;

describe('fan-out jobs, no worker running (the test runs the fan-out step itself)', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness({ NOTIFICATIONS_ROLE: 'api' });
  }, 60_000);
  afterAll(() => h?.close());

  const queue = () => h.app.get(DeliveryQueue).queue;
  const jobCount = async () => Object.values(await queue().getJobCounts(...STATES)).reduce((a, b) => a + b, 0);
  const fanOutOf = async (alertId: string) => {
    const jobs = (await queue().getJobs([...STATES])) as Job<FanOutJobData>[];
    return jobs.find((job) => job.name === FAN_OUT_JOB && job.data.alert?.alertId === alertId);
  };

  it('queues an alert to three channels as one job, and a retaken one sends nothing twice', async () => {
    const w = await registerThreeChannels(h, nextChat());
    const alert = riskAlert(w.wallet);
    const before = await jobCount();
    const result = await h.app.get(AlertIntake).submit(alert, { source: 'webhook' });
    expect(result.queued).toEqual(['messenger', 'channelhook', 'email']);
    expect((await jobCount()) - before).toBe(1);
    const job = await fanOutOf(alert.alertId);
    expect(job?.data.entries.map((e) => e.channel).sort()).toEqual(['channelhook', 'email', 'messenger']);

    // The worker died after the sends: the job is taken again and runs once more.
    const fanOut = h.app.get(FanOutProcessor);
    expect(await fanOut.process(job!)).toBe('delivered 3, handed over 0, already sent 0');
    expect(await fanOut.process(job!)).toBe('delivered 0, handed over 0, already sent 3');
    for (const filter of [
      { channel: 'telegram', destination: w.chatId },
      { channel: 'webhook', destination: w.hookPath },
      { channel: 'email', destination: w.email },
    ] as const) {
      expect(h.messages(filter).map((m) => m.outcome)).toEqual(['delivered']);
    }
    expect((await jobCount()) - before).toBe(1);
  }, 60_000);

  it('marks sends sent as they return, before it waits out a short pacing for another entry', async () => {
    const w = await registerThreeChannels(h, nextChat());
    const alert = riskAlert(w.wallet);
    await h.app.get(AlertIntake).submit(alert, { source: 'webhook' });
    const job = await fanOutOf(alert.alertId);
    const lanes = h.app.get(DestinationLanes);
    // The bot's pace is taken for 60 ms: the Telegram entry waits, the webhook and the email go at once.
    await lanes.hold([{ key: `tgbot:${BOT_TOKEN.split(':')[0]}`, intervalMs: 34 }], 60);
    const calls: string[] = [];
    const turns = jest.spyOn(lanes, 'turns').mockImplementation(function (this: DestinationLanes, requests) {
      calls.push(`turns ${requests.length}`);
      return DestinationLanes.prototype.turns.call(this, requests);
    });
    const sentMany = jest.spyOn(lanes, 'sentMany').mockImplementation(function (this: DestinationLanes, jobs) {
      calls.push(`sent ${jobs.length}`);
      return DestinationLanes.prototype.sentMany.call(this, jobs);
    });
    try {
      expect(await h.app.get(FanOutProcessor).process(job!)).toBe('delivered 3, handed over 0, already sent 0');
    } finally {
      turns.mockRestore();
      sentMany.mockRestore();
    }
    // Marked as they returned (each, or together), before the second turn: none waits for the Telegram entry.
    const second = calls.indexOf('turns 1');
    const marked = (part: string[]) =>
      part.filter((call) => call.startsWith('sent')).reduce((n, call) => n + Number(call.split(' ')[1]), 0);
    expect(calls[0]).toBe('turns 3');
    expect(marked(calls.slice(0, second))).toBe(2);
    expect(marked(calls.slice(second))).toBe(1);
  }, 60_000);

  it('hands a 429 over to its per-channel job, delayed by the retry-after, and a retake does not send it', async () => {
    const w = await registerThreeChannels(h, nextChat());
    h.sandbox.channels.webhooks.rateLimitNext(w.hookPath, 7, 1);
    const alert = riskAlert(w.wallet);
    await h.app.get(AlertIntake).submit(alert, { source: 'webhook' });
    const job = await fanOutOf(alert.alertId);
    const fanOut = h.app.get(FanOutProcessor);
    const startedAt = Date.now();
    expect(await fanOut.process(job!)).toBe('delivered 2, handed over 1, already sent 0');
    expect(await fanOut.process(job!)).toBe('delivered 0, handed over 1, already sent 2');
    expect(h.messages({ channel: 'webhook', destination: w.hookPath })).toHaveLength(1);

    const hookConfig = (await h.app.get(NotificationConfigRepository).enabledFor(w.wallet)).find(
      (c) => c.channel === 'channelhook',
    );
    const handed = await queue().getJob(deliveryJobId(alert.alertId, 'channelhook', hookConfig!.id));
    expect(handed?.name).toBe('channelhook');
    expect(await handed?.getState()).toBe('delayed');
    expect(handed!.timestamp + (handed!.opts.delay ?? 0)).toBeGreaterThanOrEqual(startedAt + 7000);
    expect(handed?.opts.attempts).toBe(DELIVERY_ATTEMPTS); // a 429 spends no attempt
    expect(handed?.data).toMatchObject({ channel: 'channelhook', configId: hookConfig!.id, lane: expect.any(String) });
  }, 60_000);

  it('hands an entry behind in its lane over once: a retake after the lane moved on leaves it to its own job', async () => {
    const w = await registerThreeChannels(h, nextChat());
    const intake = h.app.get(AlertIntake);
    const first = riskAlert(w.wallet, { alertId: `ahead-${w.chatId}` });
    await intake.submit(first, { source: 'webhook', channels: ['email'] });
    const second = riskAlert(w.wallet, { alertId: `behind-${w.chatId}`, poolAddress: OTHER_POOL });
    await intake.submit(second, { source: 'webhook' });
    const job = await fanOutOf(second.alertId);
    const fanOut = h.app.get(FanOutProcessor);
    expect(await fanOut.process(job!)).toBe('delivered 2, handed over 1, already sent 0');

    // The email ahead is delivered by its job; then the fan-out job is taken again (its worker died).
    const email = (await h.app.get(NotificationConfigRepository).enabledFor(w.wallet)).find(
      (c) => c.channel === 'email',
    );
    const processor = h.app.get(DeliveryProcessor);
    const ahead = await queue().getJob(deliveryJobId(first.alertId, 'email', email!.id));
    expect(await processor.process(ahead!, undefined)).toBe('delivered');
    expect(await fanOut.process(job!)).toBe('delivered 0, handed over 1, already sent 2');
    expect(h.messages({ channel: 'email', destination: w.email })).toHaveLength(1);

    const handed = await queue().getJob(deliveryJobId(second.alertId, 'email', email!.id));
    expect(await processor.process(handed!, undefined)).toBe('delivered');
    const mails = h.messages({ channel: 'email', destination: w.email });
    expect(mails.map((m) => (m.text.includes(first.alertId) ? 'first' : 'second'))).toEqual(['first', 'second']);
  }, 60_000);

  it('keeps a per-channel job behind a fan-out delivery that is still to run (the lane knows its carrier)', async () => {
    const w = await registerThreeChannels(h, nextChat());
    const intake = h.app.get(AlertIntake);
    const first = riskAlert(w.wallet, { alertId: `carried-${w.chatId}` });
    await intake.submit(first, { source: 'webhook' }); // a fan-out job, waiting: its email heads the lane
    const second = riskAlert(w.wallet, { alertId: `after-${w.chatId}`, poolAddress: OTHER_POOL });
    await intake.submit(second, { source: 'webhook', channels: ['email'] });
    const email = (await h.app.get(NotificationConfigRepository).enabledFor(w.wallet)).find(
      (c) => c.channel === 'email',
    );
    const behind = await queue().getJob(deliveryJobId(second.alertId, 'email', email!.id));
    const delayed = jest.spyOn(behind!, 'moveToDelayed').mockResolvedValue(undefined);
    await expect(h.app.get(DeliveryProcessor).process(behind!, 'token')).rejects.toBeInstanceOf(DelayedError);
    expect(delayed).toHaveBeenCalled();
    expect(h.messages({ channel: 'email', destination: w.email })).toHaveLength(0);
  }, 60_000);
});

describe('fan-out jobs with the worker', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness();
  }, 60_000);
  afterAll(() => h?.close());

  it('gives a failing channel the attempts left, then the DLQ, and delivers the others once', async () => {
    const w = await registerThreeChannels(h, nextChat());
    h.sandbox.channels.webhooks.failNext(w.hookPath, 503, 20);
    const alert = riskAlert(w.wallet);
    await h.app.get(AlertIntake).submit(alert, { source: 'webhook' });
    const dlqEntry = async () => {
      for (let i = 0; i < 600; i += 1) {
        const status = await h.call('GET', '/api/v1/rms/notifications/dlq', { headers: { 'x-admin-key': ADMIN_KEY } });
        const mine = status.body.latest.find((e: { alertId: string }) => e.alertId === alert.alertId);
        if (mine) return mine;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('no DLQ entry');
    };
    const entry = await dlqEntry();
    expect(entry).toMatchObject({ channel: 'channelhook', attempts: DELIVERY_ATTEMPTS });
    expect(h.messages({ channel: 'webhook', destination: w.hookPath })).toHaveLength(DELIVERY_ATTEMPTS);
    expect(h.messages({ channel: 'telegram', destination: w.chatId }).map((m) => m.outcome)).toEqual(['delivered']);
    expect(h.messages({ channel: 'email', destination: w.email }).map((m) => m.outcome)).toEqual(['delivered']);

    // Re-driven, the delivery has its five attempts again (the fan-out's spent one is not carried over).
    h.sandbox.channels.webhooks.failNext(w.hookPath, 503, DELIVERY_ATTEMPTS - 1);
    const redrive = await h.call('POST', `/api/v1/rms/notifications/dlq/${entry.id}/redrive`, {
      headers: { 'x-admin-key': ADMIN_KEY },
    });
    expect(redrive.status).toBe(202);
    const hook = { channel: 'webhook', destination: w.hookPath, outcome: 'delivered' } as const;
    expect(await h.waitForMessages(hook, 1, 60_000)).toHaveLength(1);
  }, 120_000);

  it('hands an entry behind another of its lane over, and delivers it in the lane order', async () => {
    const w = await registerThreeChannels(h, nextChat());
    const intake = h.app.get(AlertIntake);
    // The first alert goes to email only and fails once: it holds the head of the email lane for a second.
    h.sandbox.channels.smtp.failNext({ stage: 'data', code: 451, count: 1 });
    const first = riskAlert(w.wallet, { alertId: `lane-first-${w.chatId}` });
    await intake.submit(first, { source: 'webhook', channels: ['email'] });
    await h.waitForMessages({ channel: 'email', destination: w.email }, 1);
    const second = riskAlert(w.wallet, {
      alertId: `lane-second-${w.chatId}`,
      poolAddress: OTHER_POOL,
    });
    expect((await intake.submit(second, { source: 'webhook' })).queued).toHaveLength(3);

    const mails = await h.waitForMessages({ channel: 'email', destination: w.email, outcome: 'delivered' }, 2, 60_000);
    expect(mails.map((m) => (m.text.includes(first.alertId) ? 'first' : 'second'))).toEqual(['first', 'second']);
    const emailConfig = (await h.app.get(NotificationConfigRepository).enabledFor(w.wallet)).find(
      (c) => c.channel === 'email',
    );
    const handed = await h.app.get(DeliveryQueue).queue.getJob(deliveryJobId(second.alertId, 'email', emailConfig!.id));
    expect(handed?.name).toBe('email');
    await h.waitForMessages({ channel: 'telegram', destination: w.chatId, outcome: 'delivered' }, 1);
    await h.waitForMessages({ channel: 'webhook', destination: w.hookPath, outcome: 'delivered' }, 1);
  }, 90_000);
});
