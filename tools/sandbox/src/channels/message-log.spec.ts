import { MessageLog, type NewLogEntry } from './message-log';

const telegram = (destination: string, text = 'hi'): NewLogEntry => ({
  channel: 'telegram',
  destination,
  text,
  payload: { chat_id: destination, text },
  outcome: 'delivered',
  status: 200,
});

describe('MessageLog', () => {
  it('assigns sequential ids and ISO timestamps from the injected clock', () => {
    const log = new MessageLog({ now: () => Date.UTC(2030, 0, 2, 3, 4, 5) });
    const a = log.record(telegram('1'));
    const b = log.record(telegram('2'));
    expect([a.id, b.id, log.lastId, log.size]).toEqual(['1', '2', '2', 2]);
    expect(a.receivedAt).toBe('2030-01-02T03:04:05.000Z');
  });

  it('filters by channel, destination, outcome and since (exclusive id)', () => {
    const log = new MessageLog();
    log.record(telegram('1'));
    const mark = log.lastId;
    log.record(telegram('2'));
    log.record({ ...telegram('2'), outcome: 'rejected', status: 429 });
    log.record({
      channel: 'email',
      destination: 'a@x.test, b@x.test',
      text: 't',
      payload: {},
      outcome: 'delivered',
      status: 250,
    });
    expect(log.list({ since: mark }).map((e) => e.id)).toEqual(['2', '3', '4']);
    expect(log.list({ channel: 'telegram', destination: '2', outcome: 'rejected' }).map((e) => e.id)).toEqual(['3']);
    expect(log.list({ destination: 'b@x.test' }).map((e) => e.id)).toEqual(['4']);
    expect(log.list({ match: (e) => e.status === 250 })).toHaveLength(1);
  });

  it('keeps only the newest entries up to its capacity, and ids survive clear()', () => {
    const log = new MessageLog({ capacity: 3 });
    for (let i = 0; i < 5; i += 1) log.record(telegram(String(i)));
    expect(log.list().map((e) => e.destination)).toEqual(['2', '3', '4']);
    expect(log.latest(2).map((e) => e.id)).toEqual(['5', '4']);
    log.clear();
    expect(log.size).toBe(0);
    expect(log.record(telegram('x')).id).toBe('6');
  });

  it('keeps exactly its capacity, newest last, however many came (old entries are dropped in batches)', () => {
    const log = new MessageLog({ capacity: 100 });
    for (let i = 1; i <= 1_000; i += 1) {
      log.record(telegram(String(i)));
      expect(log.size).toBe(Math.min(i, 100));
      expect(log.list()[0]?.destination).toBe(String(Math.max(1, i - 99)));
    }
    expect(log.latest(1)[0]?.destination).toBe('1000');
  });

  it('waitFor resolves at once when a matching entry exists after the mark', async () => {
    const log = new MessageLog();
    log.record(telegram('old'));
    const mark = log.lastId;
    log.record(telegram('new'));
    await expect(log.waitFor({ since: mark })).resolves.toMatchObject({ destination: 'new' });
  });

  it('waitFor resolves when the matching entry arrives, ignoring others', async () => {
    const log = new MessageLog();
    const waiting = log.waitFor({ channel: 'telegram', destination: '9', since: log.lastId });
    log.record(telegram('8'));
    log.record(telegram('9', 'this one'));
    await expect(waiting).resolves.toMatchObject({ text: 'this one', id: '2' });
  });

  it('waitFor rejects after the timeout when nothing matches', async () => {
    const log = new MessageLog();
    await expect(log.waitFor({ destination: 'never' }, 10)).rejects.toThrow(
      /nothing matching \{"destination":"never"\} within 10 ms/,
    );
  });

  it('notifies subscribers until they unsubscribe', () => {
    const log = new MessageLog();
    const seen: string[] = [];
    const unsubscribe = log.subscribe((e) => seen.push(e.id));
    log.record(telegram('1'));
    unsubscribe();
    log.record(telegram('2'));
    expect(seen).toEqual(['1']);
  });
});
