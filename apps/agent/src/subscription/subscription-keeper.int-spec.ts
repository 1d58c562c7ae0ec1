import { LedgerWallet } from '@rp/ledger';
import { loadConfig } from '@rp/platform-core';
import pino from 'pino';
import { AgentConfig } from '../config/agent.config';
import { LedgerView } from '../ledger/ledger-view';
import { type AgentStore, openAgentStore } from '../store/agent-store';
import { KeyVault } from './key-vault';
import { SubscriptionKeeper } from './subscription-keeper';

const MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';
const DAY = 86_400_000;

/** The keeper against a real (in-memory) database; nothing answers at the service or RPC address. */
describe('the subscription keeper', () => {
  let store: AgentStore;
  let clock: number;
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const config = loadConfig(AgentConfig, {
    LEDGER_MNEMONIC: MNEMONIC,
    CONTRACT_RPC_URL: 'http://127.0.0.1:1/rpc',
    SERVICE_BASE_URL: 'http://127.0.0.1:1',
  });
  const wallet = LedgerWallet.fromMnemonic(MNEMONIC);
  const keeper = () =>
    new SubscriptionKeeper(config, wallet, store, new LedgerView(config.CONTRACT_RPC_URL, wallet.address, undefined), logger, {
      now: () => clock,
    });
  const attempts = () => lines.filter((line) => line.includes('buying an API key')).length;

  beforeEach(async () => {
    store = await openAgentStore('sqlite://memory');
    clock = Date.parse('2026-11-22T12:00:00Z');
    lines.length = 0;
  });

  afterEach(() => store.close());

  async function storeKey(expiresAt: number) {
    await store.keys.insert({
      id: wallet.address,
      sealedKey: new KeyVault(MNEMONIC, wallet.address).seal('rp_test_stored'),
      tier: 'standard',
      rateLimit: 60,
      expiresAt: new Date(expiresAt).toISOString(),
      purchasedAt: new Date(clock).toISOString(),
      txHash: 'h',
    });
  }

  it('uses the stored key while it has more than 3 days left, and buys when it has less', async () => {
    await storeKey(clock + 10 * DAY);
    const subscription = keeper();
    await subscription.checkIfDue();
    expect(subscription.apiKey()).toBe('rp_test_stored');
    expect(subscription.view()).toMatchObject({ active: true, tier: 'standard' });
    expect(attempts()).toBe(0);
    clock += 7.5 * DAY + config.SUBSCRIPTION_CHECK_INTERVAL_MS;
    await subscription.checkIfDue();
    expect(attempts()).toBe(1);
    // The purchase failed (nothing answers), the key is still valid and the problem is shown.
    expect(subscription.apiKey()).toBe('rp_test_stored');
    expect(subscription.view().error).toMatch(/could not buy an API key/);
  });

  it('buys again after a refusal, but not again within 10 minutes', async () => {
    await storeKey(clock + 30 * DAY);
    const subscription = keeper();
    await subscription.checkIfDue();
    await subscription.keyRejected();
    expect(subscription.apiKey()).toBeUndefined();
    expect(attempts()).toBe(1);
    clock += 60_000;
    await subscription.keyRejected();
    await subscription.checkIfDue();
    expect(attempts()).toBe(1);
    clock += 10 * 60_000;
    await subscription.checkIfDue();
    expect(attempts()).toBe(2);
  });

  it('never logs the key or the mnemonic, in the lines it does write about both', async () => {
    // One day left: the stored key is unsealed and used, a renewal is tried (and fails: nothing answers).
    await storeKey(clock + 1 * DAY);
    const subscription = keeper();
    await subscription.checkIfDue();
    expect(subscription.apiKey()).toBe('rp_test_stored');
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(
      expect.arrayContaining([
        'buying an API key with the direct x402 flow',
        expect.stringMatching(/^could not buy an API key: /),
      ]),
    );
    const output = lines.join('\n');
    expect(output).not.toContain('rp_test_stored');
    expect(output).not.toContain(MNEMONIC);
    const words = MNEMONIC.split(' ');
    // Every run of two or more consecutive words, and every word of four letters or more on its own.
    for (let start = 0; start < words.length; start += 1) {
      for (let end = start + 2; end <= words.length; end += 1) {
        expect(output).not.toContain(words.slice(start, end).join(' '));
      }
    }
    for (const word of words.filter((w) => w.length >= 4)) expect(output).not.toMatch(new RegExp(`\\b${word}\\b`, 'i'));
  });
});
