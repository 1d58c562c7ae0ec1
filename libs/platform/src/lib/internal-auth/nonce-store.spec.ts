import { MemoryNonceStore } from './nonce-store';

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

  it('refuses to claim past its bound rather than forget a nonce a replay could reuse', () => {
    const store = new MemoryNonceStore(2, clock);
    const validUntil = now + 60_000;
    expect(store.claimNow('nonce-1111111111111111', validUntil)).toBe('fresh');
    expect(store.claimNow('nonce-2222222222222222', validUntil + 1000)).toBe('fresh');
    expect(store.claimNow('nonce-3333333333333333', validUntil)).toBe('full');
    // A replay is still recognised as one when the store is full.
    expect(store.claimNow('nonce-1111111111111111', validUntil)).toBe('replayed');
    now = validUntil + 1;
    expect(store.claimNow('nonce-3333333333333333', now + 60_000)).toBe('fresh');
  });
});
