/**
 * The owner is told (issue 17, part 3), end to end: a real agent process with its owner's channels set
 * (`NOTIFY_TELEGRAM_CHAT_ID`, `NOTIFY_EMAIL`, `NOTIFY_WEBHOOK_URL`) buys its key from the real service, registers
 * those channels as its wallet's notification configurations under that key, and its `subscription_renewed` event
 * reaches the sandbox's Telegram, SMTP and webhook stand-ins through the notifications service, once each. The
 * webhook URL, a secret, never appears in the agent's log.
 */
import { randomBytes } from 'node:crypto';
import { UNIT } from '@rp/sandbox';
import { type AgentStack, startAgentStack } from './support/agent-stack';

describe("the agent telling its wallet's owner", () => {
  let stack: AgentStack;

  beforeAll(async () => {
    stack = await startAgentStack({ redisDb: 14, notifications: true });
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('registers the owner channels under its key and delivers its renewed key to each, once', async () => {
    const owner = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, usdcForKey: 1n * UNIT });
    const chat = String(600_000_000 + Math.floor(Math.random() * 1_000_000));
    const email = `owner-${chat}@example.com`;
    const hookId = randomBytes(6).toString('hex');
    const hookPath = `discord/${BigInt(`0x${hookId}`)}/${hookId}secret`;
    const agent = await stack.agent(owner, {
      NOTIFY_TELEGRAM_CHAT_ID: chat,
      NOTIFY_EMAIL: email,
      NOTIFY_WEBHOOK_URL: `${stack.sandbox.url}/hooks/${hookPath}`,
    });
    await stack.until(agent, (s) => s.subscription.active, 'a key bought');

    const destinations = [
      { channel: 'telegram', destination: chat },
      { channel: 'email', destination: email },
      { channel: 'webhook', destination: hookPath },
    ] as const;
    const renewed = (filter: (typeof destinations)[number]) =>
      stack.sandbox.channels.log
        .list({ ...filter, outcome: 'delivered' })
        .filter((message) => message.text.includes('API key was renewed'));
    const deadline = Date.now() + 60_000;
    while (destinations.some((filter) => renewed(filter).length === 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const filter of destinations) {
      const [message] = renewed(filter);
      expect(message?.text).toContain(owner.address.slice(0, 6));
      expect(message?.text).toMatch(/Valid until/);
    }
    expect(await stack.metrics(agent)).toContain(
      'agent_owner_events_total{type="subscription_renewed",outcome="delivered"} 1',
    );
    for (const filter of destinations) expect(renewed(filter)).toHaveLength(1);
    expect(agent.lines.join('\n')).not.toContain(`${hookId}secret`);
  }, 180_000);
});
