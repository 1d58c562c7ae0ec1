import { type RunningSandbox, startSandbox } from '../index';

/**
 * The page a person running `npm start` watches: price buttons for every oracle price, and the demo agent's
 * status, which the sandbox relays from `agentStatusUrl` (the page cannot call the agent's origin itself). The relay
 * of a real agent's status is proven under `npm start` (tools/dev/src/launcher.e2e-spec.ts); here, what the sandbox
 * says when there is no agent to relay, with no stand-in playing one.
 */
describe('the sandbox page and the agent relay', () => {
  let unreachable: RunningSandbox;
  let without: RunningSandbox;

  beforeAll(async () => {
    unreachable = await startSandbox({
      port: 0,
      tlsPort: 0,
      smtpPort: 0,
      ledgerIntervalMs: 0,
      // Port 1 on loopback: privileged, nothing listens there.
      agentStatusUrl: 'http://127.0.0.1:1/status',
    });
    without = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  });

  afterAll(async () => {
    await unreachable?.close();
    await without?.close();
  });

  it('offers -3/-10/-20/+10 % buttons for each price and an Agent section', async () => {
    const page = await (await fetch(`${without.url}/`)).text();
    const scenario = without.scenario;
    expect(page).toContain('<h2>Agent</h2>');
    expect(page).toContain(
      `<button data-oracle="${scenario?.oracle}" data-asset="${scenario?.xlm}" data-price="3000000" data-percent="-10">`,
    );
    // No inline handlers: the page's one script reads the data attributes, and escapes with the shared escapeHtml.
    expect(page).not.toContain('onclick');
    expect(page).toContain("closest('button[data-percent]')");
    expect(page).toContain('function escapeHtml(value)');
    // Each script, shared function included, is valid JavaScript on its own (parsed, not run: no DOM here).
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(() => new Function(script)).not.toThrow();
    for (const label of ['−3 %', '−10 %', '−20 %', '+10 %']) expect(page).toContain(label);
  });

  it('has an oracle feeds panel whose buttons stop and restart feeds through the control API', async () => {
    const page = await (await fetch(`${without.url}/`)).text();
    expect(page).toContain('<h2>Oracle feeds</h2>');
    expect(page).toContain("fetch('/control/oracles/feeds')");
    expect(page).toContain("'/control/oracles/' + oracle + '/feed'");
    expect(page).toContain('Stop, 10 min ago');
  });

  it('says so when no agent is configured, and when the configured one does not answer', async () => {
    const none = await fetch(`${without.url}/agent/status`);
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ error: 'no agent is shown here (SANDBOX_AGENT_URL is not set)' });
    const silent = await fetch(`${unreachable.url}/agent/status`);
    expect(silent.status).toBe(502);
    expect(((await silent.json()) as { error: string }).error).toMatch(/^the agent did not answer: /);
  });
});
