import { turnOrder } from './gateway-round';

/** What comes right before each target, turn after turn, over `slices` slices. */
function predecessors(targets: readonly string[], slices: number): Map<string, string[]> {
  const turns = Array.from({ length: slices }, (_, slice) => turnOrder(targets, slice)).flat();
  const before = new Map<string, string[]>();
  turns.forEach((target, i) => {
    if (i > 0) before.set(target, [...(before.get(target) ?? []), turns[i - 1]]);
  });
  return before;
}

describe('the gateway bench turn order', () => {
  it('runs every target once per slice, the direct calls first', () => {
    for (let slice = 0; slice < 4; slice += 1) {
      expect(turnOrder(['direct', 'floor', 'gateway'], slice)).toEqual(
        slice % 2 === 0 ? ['direct', 'floor', 'gateway'] : ['direct', 'gateway', 'floor'],
      );
    }
  });

  it('gives the floor and the gateway each predecessor equally often', () => {
    const before = predecessors(['direct', 'floor', 'gateway'], 12);
    const count = (target: string, previous: string) =>
      (before.get(target) ?? []).filter((name) => name === previous).length;
    expect(count('floor', 'direct')).toBe(count('gateway', 'direct'));
    expect(count('floor', 'gateway')).toBe(count('gateway', 'floor'));
    expect(count('floor', 'direct')).toBeGreaterThan(0);
  });
});
