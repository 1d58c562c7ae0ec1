import { EndpointPool, MAX_REST_MS } from './endpoint-pool';

const A = 'http://127.0.0.1:7001/';
const B = 'https://rpc.example.org/v1/secret-key';

function pool(staleAfterMs = 15_000) {
  const clock = { now: 1_000_000 };
  const endpoints = new EndpointPool([A, B], { cooldownMs: 30_000, staleAfterMs, now: () => clock.now });
  const [primary, fallback] = endpoints.endpoints;
  return { clock, endpoints, primary, fallback };
}

describe('EndpointPool failover rules', () => {
  it('uses the primary while it is not resting, the next one while it rests, and the primary again after', () => {
    const { clock, endpoints, primary, fallback } = pool();
    expect(endpoints.pick()).toBe(primary);
    endpoints.rest(primary);
    expect(endpoints.pick()).toBe(fallback);
    clock.now += 30_000;
    expect(endpoints.pick()).toBe(primary);
  });

  it('rests an endpoint for the Retry-After it sent instead of the cooldown', () => {
    const { clock, endpoints, primary, fallback } = pool();
    endpoints.rest(primary, 120_000);
    clock.now += 30_000;
    expect(endpoints.pick()).toBe(fallback);
    clock.now += 90_000;
    expect(endpoints.pick()).toBe(primary);
  });

  it('caps a Retry-After at MAX_REST_MS', () => {
    const { clock, endpoints, primary } = pool();
    endpoints.rest(primary, 24 * 3_600_000);
    clock.now += MAX_REST_MS;
    expect(endpoints.pick()).toBe(primary);
  });

  it('takes an endpoint whose latest ledger stood still for staleAfterMs, with another one ahead, as behind', () => {
    const { clock, endpoints, primary, fallback } = pool();
    endpoints.observeLedger(primary, 100);
    endpoints.observeLedger(fallback, 100);
    clock.now += 14_999;
    endpoints.observeLedger(fallback, 103);
    expect(endpoints.behind(primary)).toBe(false);
    clock.now += 1;
    endpoints.observeLedger(primary, 100);
    expect(endpoints.stalled(primary)).toBe(true);
    expect(endpoints.behind(primary)).toBe(true);
  });

  it('does not take a stalled endpoint as behind while no other one is ahead (the network itself stands still)', () => {
    const { clock, endpoints, primary, fallback } = pool();
    endpoints.observeLedger(primary, 100);
    endpoints.observeLedger(fallback, 100);
    clock.now += 60_000;
    expect(endpoints.stalled(primary)).toBe(true);
    expect(endpoints.behind(primary)).toBe(false);
  });

  it('does not take an endpoint that keeps advancing as behind, even one ledger short of another', () => {
    const { clock, endpoints, primary, fallback } = pool();
    for (let ledger = 100; ledger < 110; ledger++) {
      endpoints.observeLedger(primary, ledger);
      endpoints.observeLedger(fallback, ledger + 1);
      clock.now += 5_000;
    }
    expect(endpoints.behind(primary)).toBe(false);
  });

  it('never takes the only endpoint as stalled: there is nothing to move to', () => {
    const clock = { now: 0 };
    const single = new EndpointPool([A], { cooldownMs: 30_000, staleAfterMs: 15_000, now: () => clock.now });
    single.observeLedger(single.endpoints[0], 100);
    clock.now += 60_000;
    expect(single.stalled(single.endpoints[0])).toBe(false);
  });

  it('shows each endpoint by origin only: in use, resting and why, its latest ledger', () => {
    const { endpoints, primary, fallback } = pool();
    endpoints.observeLedger(fallback, 7);
    endpoints.rest(primary, undefined, 'stale');
    expect(endpoints.view()).toEqual([
      { origin: 'http://127.0.0.1:7001', inUse: false, resting: 'stale', latestLedger: null },
      { origin: 'https://rpc.example.org', inUse: true, resting: null, latestLedger: 7 },
    ]);
    expect(JSON.stringify(endpoints.view())).not.toContain('secret-key');
  });
});
