import { WriteBehind } from './write-behind';

describe('WriteBehind', () => {
  const options = { quietMs: 60_000, maxWaitMs: 60_000, maxItems: 5 };

  it('writes what came in together in one write, when flushed, and nothing when nothing waits', async () => {
    const writes: number[][] = [];
    const behind = new WriteBehind<number>(async (items) => void writes.push(items), options);
    await behind.add([1, 2]);
    await behind.add([3]);
    await behind.add([]);
    expect(writes).toEqual([]);
    await behind.flush();
    await behind.flush();
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('makes the caller wait for the write once too many items wait', async () => {
    const writes: number[][] = [];
    let release = () => undefined as void;
    const behind = new WriteBehind<number>(
      (items) => new Promise<void>((resolve) => (release = () => (writes.push(items), resolve()))),
      options,
    );
    await behind.add([1, 2, 3]);
    let done = false;
    const full = behind.add([4, 5, 6]).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    release();
    await full;
    expect(writes).toEqual([[1, 2, 3, 4, 5, 6]]);
  });

  it('writes one batch after another, in order', async () => {
    const order: string[] = [];
    const behind = new WriteBehind<string>(async (items) => void order.push(items.join('')), options);
    await behind.add(['a']);
    const first = behind.flush();
    await behind.add(['b']);
    await Promise.all([first, behind.flush()]);
    expect(order).toEqual(['a', 'b']);
  });
});
