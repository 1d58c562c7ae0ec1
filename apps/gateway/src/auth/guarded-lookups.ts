/** Lookups that may wait behind the one running for an address; past that, the address is refused without one. */
export const MAX_WAITING_LOOKUPS = 100;

interface Lane {
  /** Settles when the last lookup queued on this lane has finished. */
  tail: Promise<void>;
  /** Lookups running or waiting on this lane. */
  size: number;
}

/**
 * Key lookups for client addresses that are guessing keys (their failure bucket is empty): one at a time per
 * address, the others waiting their turn. However fast an address guesses, the subscription service answers at
 * most one lookup at a time for it (per gateway replica), and a valid key presented meanwhile from the same
 * address still gets its answer, only after the lookups ahead of it. `run` answers `undefined` instead of queuing
 * when `maxWaiting` lookups already wait for that address.
 */
export class GuardedLookups {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly maxWaiting = MAX_WAITING_LOOKUPS) {}

  /** Addresses with a lookup running or waiting. */
  get addresses(): number {
    return this.lanes.size;
  }

  run<T>(address: string, lookup: () => Promise<T>): Promise<T> | undefined {
    let lane = this.lanes.get(address);
    if (!lane) {
      lane = { tail: Promise.resolve(), size: 0 };
      this.lanes.set(address, lane);
    }
    if (lane.size > this.maxWaiting) return undefined;
    lane.size += 1;
    const result = lane.tail.then(lookup);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    lane.tail = settled;
    const current = lane;
    void settled.then(() => {
      current.size -= 1;
      if (current.size === 0 && this.lanes.get(address) === current) this.lanes.delete(address);
    });
    return result;
  }
}
