/**
 * The watch list's change mark (ADR 032), on every database the test can reach: it moves with every write that may
 * change the monitor's watch list, also one stamped earlier than the newest configuration (an API replica whose
 * clock is behind), and stays put while nothing is written.
 */
import { type DocumentStore, openDocumentStore, parseDatabaseUrl, testDatabases } from '@rp/persistence';
import { CHANNEL_CONFIGS, NotificationConfigRepository } from './notification-config.repository';

const { databases } = testDatabases('watch_list_mark');

const WALLET_A = 'GDKRZ4ZJU7VO3WDVLSNO6ZZL2YNCT6VEDQHFZSOXKIRJKVI3XMHYBDVM';
const WALLET_B = 'GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI';
const ACCOUNT = 'partner:mark-test';

describe.each(databases)('the watch list mark on $name', ({ url, drop }) => {
  let store: DocumentStore;
  let configs: NotificationConfigRepository;

  beforeAll(async () => {
    store = await openDocumentStore(parseDatabaseUrl(url, 'notifications'));
    configs = new NotificationConfigRepository(store);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await drop();
  });

  it('moves with every write that may change the watch list, and only then', async () => {
    const marks: string[] = [await configs.changeMark()];
    const moved = async () => {
      const mark = await configs.changeMark();
      expect(marks).not.toContain(mark);
      marks.push(mark);
      expect(await configs.changeMark()).toBe(mark);
    };
    const at = new Date('2026-11-26T10:00:00Z');
    const fields = { enabled: true, minRiskLevel: 'high' as const, email: 'a@example.com' };
    const a = await configs.upsert(ACCOUNT, WALLET_A, 'email', fields, at);
    await moved();
    await configs.upsert(ACCOUNT, WALLET_B, 'email', fields, at);
    await moved();
    // The same instant (or a replica's clock behind the newest configuration): a level change still moves it.
    await configs.upsert(
      ACCOUNT,
      WALLET_A,
      'email',
      { ...fields, minRiskLevel: 'medium' },
      new Date(at.getTime() - 60_000),
    );
    await moved();
    await configs.update(a.id, { enabled: false });
    await moved();
    await configs.remove(ACCOUNT, WALLET_B, 'email');
    await moved();
    expect(await configs.remove(ACCOUNT, WALLET_B, 'email')).toBe(0);
    expect(await configs.changeMark()).toBe(marks[marks.length - 1]);
    expect(await configs.removeById(a.id)).toBe(true);
    await moved();
  });

  it('moves when a configuration is added or removed by another writer (a migration)', async () => {
    const before = await configs.changeMark();
    const collection = await store.collection<{ id: string; walletAddress: string }>(CHANNEL_CONFIGS);
    await collection.insert({ id: 'migrated-1', walletAddress: WALLET_A });
    const added = await configs.changeMark();
    expect(added).not.toBe(before);
    await collection.delete({ id: 'migrated-1' });
    expect(await configs.changeMark()).not.toBe(added);
  });
});
