/**
 * The agent with `SERVICE_MOCK=true` and nothing else running: the mock plays a position drifting into danger, the
 * agent presigns and decides as it would, nothing reaches a ledger (the RPC address is a closed port) and the
 * decision is audited `skipped`. `/status` and `/metrics` ask for the status token; `/health` does not.
 */
import type { AppProcess } from '@rp/dev';
import type { AgentStatus } from './support/agents';
import { startApp } from './support/running-apps';

const TOKEN = 'status-token-0123456789abcdef';

describe('the agent in mock mode', () => {
  let agent: AppProcess;

  beforeAll(async () => {
    agent = await startApp('agent', {
      SERVICE_MOCK: 'true',
      POLL_INTERVAL_MS: '500',
      CONTRACT_RPC_URL: 'http://127.0.0.1:1/rpc',
      SERVICE_BASE_URL: 'http://127.0.0.1:1',
      STATUS_TOKEN: TOKEN,
      REDIS_URL: '',
    });
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
  });

  const status = async (): Promise<AgentStatus> =>
    (await (await fetch(`${agent.url}/status`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as AgentStatus;

  it('plays the whole loop: presigned close at high, a decision at critical audited as skipped', async () => {
    let seen: AgentStatus | undefined;
    const levels = new Set<string>();
    let presigned = false;
    for (let round = 0; round < 200 && !seen; round += 1) {
      const current = await status();
      for (const position of current.positions) levels.add(position.riskLevel);
      if (current.presigned.entries > 0) presigned = true;
      if (current.recentCloses.length > 0) seen = current;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toBeDefined();
    expect(seen?.mode).toBe('mock');
    expect(seen?.subscription).toMatchObject({ active: true, tier: 'mock' });
    expect(presigned).toBe(true);
    expect([...levels]).toEqual(expect.arrayContaining(['low', 'medium', 'high']));
    const close = seen?.recentCloses[0];
    expect(close).toMatchObject({ outcome: 'skipped', riskSnapshot: { source: 'mock' } });
    expect(close?.riskSnapshot.positions).toEqual([expect.objectContaining({ riskLevel: 'critical' })]);
    expect(close?.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(agent.lines.some((line) => line.includes('close sent'))).toBe(false);
  }, 60_000);

  it('answers /health to anyone, /status and /metrics only with the token', async () => {
    expect((await fetch(`${agent.url}/health`)).status).toBe(200);
    const refused = await fetch(`${agent.url}/status`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    expect((await fetch(`${agent.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const metrics = await fetch(`${agent.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await metrics.text()).toMatch(/agent_closes_total\{outcome="skipped"\} 1/);
    expect((await fetch(`${agent.url}/nowhere`)).status).toBe(404);
  });
});
