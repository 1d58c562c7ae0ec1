/**
 * The agent signs on what its service and its RPC answer, so it reaches them over https:// only, or plain http:// to
 * a loopback host (issue 17 §1): a plain http:// URL to any other host stops the real process at start, before it
 * reads the ledger or listens, with one line naming the setting and exit status 78, and no secret in that line.
 */
import { AppProcess, freePort } from '@rp/dev';
import { DEMO_MNEMONIC } from './support/running-apps';

const STATUS_TOKEN = 'status-token-never-printed-0123';

async function start(env: Record<string, string>): Promise<AppProcess> {
  return new AppProcess({
    app: 'agent',
    port: await freePort(),
    env: {
      HOST: '127.0.0.1',
      NODE_ENV: 'test',
      DATABASE_URL: 'sqlite://memory',
      REDIS_URL: '',
      LEDGER_MNEMONIC: DEMO_MNEMONIC,
      STATUS_TOKEN,
      // A closed port: nothing here may reach a network.
      CONTRACT_RPC_URL: 'https://127.0.0.1:1/rpc',
      ...env,
    },
  });
}

describe('the agent refusing plain http:// to anything but loopback', () => {
  it.each([
    ['SERVICE_BASE_URL', 'http://example.com'],
    ['CONTRACT_RPC_URL', 'http://user:rpc-password@example.com/rpc?apiKey=rpc-key'],
  ])('%s=%s: one line, status 78, nothing secret', async (name, url) => {
    const agent = await start({ [name]: url });
    expect(await agent.whenExited()).toBe(78);
    const lines = agent.lines.filter((line) => line.trim() !== '');
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^agent: invalid configuration: ${name} must be an https:// URL \\(plain http:// only to a loopback host`),
      ),
    ]);
    const printed = lines.join('\n');
    for (const secret of ['rpc-password', 'rpc-key', STATUS_TOKEN, DEMO_MNEMONIC]) expect(printed).not.toContain(secret);
    for (const word of DEMO_MNEMONIC.split(' ').filter((w) => w.length >= 4)) expect(printed).not.toContain(word);
  }, 60_000);

  it('starts with plain http:// to a loopback service (the local gateway of npm start)', async () => {
    const agent = await start({ SERVICE_BASE_URL: 'http://localhost:1', SERVICE_MOCK: 'true' });
    try {
      await agent.waitReady(60_000);
    } finally {
      await agent.stop();
    }
  }, 90_000);
});
