/**
 * The agent with two RPC endpoints of one ledger (issue 18 §3): the first, a forwarder process in front of the
 * sandbox, is killed mid-run, the price drops at once, and the agent, reading and building from the ledger itself
 * (no key, no risk service), still decides at its next polls and its close lands, through the second endpoint.
 */
import { type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { type AgentCalls, type AgentStatus, agentCalls, agentStack } from './support/agents';
import { type TcpForwarder, startTcpForwarder } from './support/tcp-forwarder';

const CRITICAL_XLM_PRICE = 2_800_000n;
const DEMO_XLM_PRICE = 3_000_000n;
const POLL_MS = 1000;

interface RpcView {
  endpoint: string;
  endpoints: { origin: string; inUse: boolean; resting: string | null; latestLedger: number | null }[];
  lastCatchUp: { reason: string; fromLedger: number; toLedger: number; events: number | null } | null;
}
const rpcOf = (status: AgentStatus) => (status as AgentStatus & { rpc: RpcView }).rpc;
const confirmed = (s: AgentStatus) => s.recentCloses.find((close) => close.outcome === 'confirmed');

describe('the agent with two RPC endpoints', () => {
  let stack: Stack;
  let agents: AgentCalls;
  let first: TcpForwarder | undefined;

  beforeAll(async () => {
    stack = await startStack(agentStack({ redisDb: 15 }));
    agents = agentCalls(stack);
  }, 180_000);

  afterAll(async () => {
    await first?.kill();
    agents?.setXlmPrice(DEMO_XLM_PRICE);
    await stack?.close();
  });

  it('the first killed mid-run: no missed decision, the close lands through the second', async () => {
    const direct = new URL(stack.sandbox.secureRpcUrl);
    first = await startTcpForwarder(Number(direct.port));
    const proxied = new URL(direct.href);
    proxied.port = String(first.port);
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
    const agent = await agents.start(owner, {
      CONTRACT_RPC_URL: `${proxied.href},${direct.href}`,
      POLL_INTERVAL_MS: String(POLL_MS),
    });
    const watching = await agents.until(
      agent,
      (s) => s.mode === 'degraded' && s.positions.length === 1 && rpcOf(s).endpoint === proxied.origin,
      'the agent watching the position through the first endpoint',
      90_000,
    );
    expect(rpcOf(watching).endpoints.map((endpoint) => endpoint.origin)).toEqual([proxied.origin, direct.origin]);

    await first.kill();
    const killedAt = Date.now();
    agents.setXlmPrice(CRITICAL_XLM_PRICE);

    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'the close confirmed', 90_000);
    const close = confirmed(closed);
    expect(close?.riskSnapshot.source).toBe('ledger');
    expect((await stack.ledger.getTransaction(close?.txHash ?? '')).status).toBe('SUCCESS');
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
    // No missed decision: every poll after the kill reached the ledger, one close was decided, none failed.
    expect(agent.lines.filter((line) => line.includes('poll failed'))).toEqual([]);
    expect(closed.recentCloses.filter((entry) => entry.outcome !== 'confirmed')).toEqual([]);
    expect(Date.parse(close?.decidedAt ?? '') - killedAt).toBeLessThan(30 * POLL_MS);

    // The first endpoint is tried again after each rest and refused again: between two polls it rests.
    const failedOver = await agents.until(
      agent,
      (s) => rpcOf(s).endpoint === direct.origin && rpcOf(s).endpoints[0].resting === 'failure',
      'the second endpoint in use, the first resting',
    );
    expect(rpcOf(failedOver).lastCatchUp).toMatchObject({ reason: 'endpoint-changed' });
    const metrics = await agents.metrics(agent);
    expect(metrics).toContain(`ledger_rpc_endpoint_in_use{origin="${direct.origin}"} 1`);
    expect(metrics).toContain(`ledger_rpc_endpoint_in_use{origin="${proxied.origin}"} 0`);
  }, 240_000);
});
