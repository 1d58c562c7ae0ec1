import { Registry } from 'prom-client';
import { MemoryNonceStore, registerNonceMetrics } from './nonce-store';

describe('the in-process nonce store', () => {
  let now = 1_800_000_000_000;
  const clock = () => now;

  it('accepts a nonce once and refuses it for as long as its signature is valid', async () => {
    const store = new MemoryNonceStore(10, clock);
    const validUntil = now + 60_000;
    expect(await store.claim('nonce-aaaaaaaaaaaaaaaa', validUntil)).toBe('fresh');
    expect(await store.claim('nonce-aaaaaaaaaaaaaaaa', validUntil)).toBe('replayed');
    now += 59_000;
    expect(await store.claim('nonce-aaaaaaaaaaaaaaaa', validUntil)).toBe('replayed');
    expect(await store.claim('nonce-bbbbbbbbbbbbbbbb', validUntil)).toBe('fresh');
  });

  it('forgets nonces once their signatures have left the clock window', () => {
    const store = new MemoryNonceStore(10, clock);
    const validUntil = now + 60_000;
    store.claimNow('nonce-cccccccccccccccc', validUntil);
    store.claimNow('nonce-dddddddddddddddd', validUntil);
    expect(store.size).toBe(2);
    now = validUntil + 1;
    store.claimNow('nonce-eeeeeeeeeeeeeeee', now + 60_000);
    expect(store.size).toBe(1);
  });

  it('past its crowded mark keeps accepting fresh nonces and still refuses every replay', () => {
    const store = new MemoryNonceStore(2, clock);
    const validUntil = now + 60_000;
    expect(store.claimNow('nonce-1111111111111111', validUntil)).toBe('fresh');
    expect(store.claimNow('nonce-2222222222222222', validUntil + 1000)).toBe('fresh');
    expect(store.crowded).toBe(false);
    // Honest load beyond the mark: the window times the rate is held, nothing is refused or forgotten.
    const honest = Array.from({ length: 1000 }, (_, i) => `nonce-${String(i).padStart(16, '0')}`);
    expect(honest.map((nonce) => store.claimNow(nonce, validUntil)).every((claim) => claim === 'fresh')).toBe(true);
    expect(store.crowded).toBe(true);
    expect(store.size).toBe(1002);
    // Every nonce claimed, the first as well as the last, is still a replay inside the window.
    expect(store.claimNow('nonce-1111111111111111', validUntil)).toBe('replayed');
    expect(honest.map((nonce) => store.claimNow(nonce, validUntil)).every((claim) => claim === 'replayed')).toBe(true);
    // Once the window has passed, the groups go and the flag comes down.
    now = validUntil + 1001;
    expect(store.claimNow('nonce-3333333333333333', now + 60_000)).toBe('fresh');
    expect(store.size).toBe(1);
    expect(store.crowded).toBe(false);
  });

  it('shows what it holds and whether it is crowded as metrics', async () => {
    const registry = new Registry();
    const store = new MemoryNonceStore(1, clock);
    registerNonceMetrics(registry, store);
    store.claimNow('nonce-4444444444444444', now + 60_000);
    expect(await registry.metrics()).toContain('internal_auth_nonce_store_crowded 0');
    store.claimNow('nonce-5555555555555555', now + 60_000);
    const metrics = await registry.metrics();
    expect(metrics).toContain('internal_auth_nonces_held 2');
    expect(metrics).toContain('internal_auth_nonce_store_crowded 1');
  });
});
