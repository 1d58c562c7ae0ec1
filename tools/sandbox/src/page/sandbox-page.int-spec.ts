import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningSandbox, startSandbox } from '../index';

/**
 * The page a person running `npm start` watches: price buttons for every oracle price, and the demo agent's
 * status, which the sandbox relays from `agentStatusUrl` (the page cannot call the agent's origin itself).
 */
describe('the sandbox page and the agent relay', () => {
  let agent: Server;
  let withAgent: RunningSandbox;
  let without: RunningSandbox;
  let agentCalls = 0;

  beforeAll(async () => {
    // Whatever answers at the agent's /status: the relay passes its JSON and status on.
    agent = createServer((_req, res) => {
      agentCalls += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ mode: 'service', role: 'active' }));
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    const agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/status`;
    withAgent = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0, agentStatusUrl: agentUrl });
    without = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  });

  afterAll(async () => {
    await withAgent?.close();
    await without?.close();
    agent?.close();
  });

  it('offers -3/-10/-20/+10 % buttons for each price and an Agent section', async () => {
    const page = await (await fetch(`${withAgent.url}/`)).text();
    const scenario = withAgent.scenario;
    expect(page).toContain('<h2>Agent</h2>');
    expect(page).toContain(`movePrice('${scenario?.oracle}','${scenario?.xlm}','3000000',-10)`);
    for (const label of ['−3 %', '−10 %', '−20 %', '+10 %']) expect(page).toContain(label);
  });

  it('relays the agent status, and says so when no agent is configured', async () => {
    const relayed = await fetch(`${withAgent.url}/agent/status`);
    expect([relayed.status, await relayed.json()]).toEqual([200, { mode: 'service', role: 'active' }]);
    expect(agentCalls).toBe(1);
    const none = await fetch(`${without.url}/agent/status`);
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ error: 'no agent is shown here (SANDBOX_AGENT_URL is not set)' });
  });
});
