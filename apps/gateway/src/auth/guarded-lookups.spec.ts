import { GuardedLookups } from './guarded-lookups';

/** A lookup the test finishes by hand, recording how many ran at once. */
function gate() {
  let release: (value: string) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const done = new Promise<string>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  return { done, release, fail };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('lookups of an address that is guessing keys', () => {
  it('run one at a time for that address, in order, while other addresses are not held up', async () => {
    const lookups = new GuardedLookups();
    const started: string[] = [];
    const gates = [gate(), gate(), gate()];
    const results = gates.map((g, i) =>
      lookups.run('10.0.0.1', () => {
        started.push(`a${i}`);
        return g.done;
      }),
    );
    const other = lookups.run('10.0.0.2', async () => {
      started.push('b');
      return 'other';
    });
    await turn();
    expect(started).toEqual(['a0', 'b']);
    expect(await other).toBe('other');
    gates[0].fail(new Error('introspection failed'));
    await expect(results[0]).rejects.toThrow('introspection failed');
    await turn();
    expect(started).toEqual(['a0', 'b', 'a1']);
    gates[1].release('valid');
    expect(await results[1]).toBe('valid');
    gates[2].release('unknown');
    expect(await results[2]).toBe('unknown');
    await turn();
    expect(lookups.addresses).toBe(0);
  });

  it('refuse to queue more than the bound for one address', async () => {
    const lookups = new GuardedLookups(2);
    const held = gate();
    const queued = [1, 2, 3].map(() => lookups.run('10.0.0.3', () => held.done));
    expect(queued.every((lookup) => lookup !== undefined)).toBe(true);
    expect(lookups.run('10.0.0.3', () => held.done)).toBeUndefined();
    expect(lookups.run('10.0.0.4', async () => 'elsewhere')).toBeDefined();
    held.release('done');
    await Promise.all(queued);
    await turn();
    expect(lookups.run('10.0.0.3', async () => 'again')).toBeDefined();
  });
});
