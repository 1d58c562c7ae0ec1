import type { PoolActivity } from '@rp/ledger';
import { type CatchUpLedger, LedgerCatchUp } from './ledger-catch-up';

const WALLET = 'GWALLET';
const OTHER = 'GOTHER';
const POOL = 'CPOOL';

/** The user a pool event (`borrow`, asset, from) names. */
const eventNaming = (user: string) => user;

/** The RPC seam as the catch-up sees it: the test sets the latest ledger, the endpoint and the events. */
class ScriptedLedger implements CatchUpLedger {
  latest = 100;
  origin = 'https://a.example';
  down = false;
  eventsFail?: { rpcCode?: number };
  /** The users the pool's events name, one entry per event. */
  events: string[] = [];
  readonly eventRequests: { pools: readonly string[]; startLedger: number }[] = [];

  async getLatestLedger() {
    if (this.down) throw new Error('ECONNREFUSED');
    return { sequence: this.latest };
  }

  originInUse(): string {
    return this.origin;
  }

  async poolActivitySince(pools: readonly string[], startLedger: number): Promise<PoolActivity> {
    this.eventRequests.push({ pools, startLedger });
    if (this.eventsFail) throw Object.assign(new Error('failed'), this.eventsFail);
    return { touched: new Map([[POOL, new Set(this.events)]]), events: this.events.length, latestLedger: this.latest };
  }
}

function setUp() {
  const ledger = new ScriptedLedger();
  return { ledger, catchUp: new LedgerCatchUp(ledger, WALLET, () => new Date('2026-01-01T00:00:00Z')) };
}

describe('LedgerCatchUp', () => {
  it('reads nothing while polls reach the ledger through the same endpoint, ledgers skipped between polls or not', async () => {
    const { ledger, catchUp } = setUp();
    expect(await catchUp.beforeDecision([POOL])).toBeUndefined();
    ledger.latest = 130;
    expect(await catchUp.beforeDecision([POOL])).toBeUndefined();
    expect(ledger.eventRequests).toEqual([]);
  });

  it('after polls that could not reach the ledger, reads the pool events from the first missed ledger on', async () => {
    const { ledger, catchUp } = setUp();
    await catchUp.beforeDecision([POOL]);
    ledger.down = true;
    expect(await catchUp.beforeDecision([POOL])).toBeUndefined();
    expect(await catchUp.beforeDecision([POOL])).toBeUndefined();
    ledger.down = false;
    ledger.latest = 112;
    ledger.events = [eventNaming(OTHER), eventNaming(WALLET)];
    expect(await catchUp.beforeDecision([POOL])).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      fromLedger: 101,
      toLedger: 112,
      reason: 'outage',
      events: 2,
      walletPools: [POOL],
    });
    expect(ledger.eventRequests[0]).toMatchObject({ startLedger: 101 });
    expect(catchUp.last?.toLedger).toBe(112);
    ledger.latest = 113;
    expect(await catchUp.beforeDecision([POOL])).toBeUndefined();
  });

  it('after a move to another endpoint, reads what was missed since the last poll', async () => {
    const { ledger, catchUp } = setUp();
    await catchUp.beforeDecision([POOL]);
    ledger.origin = 'https://b.example';
    ledger.latest = 104;
    ledger.events = [eventNaming(OTHER)];
    expect(await catchUp.beforeDecision([POOL])).toMatchObject({
      fromLedger: 101,
      toLedger: 104,
      reason: 'endpoint-changed',
      events: 1,
      walletPools: [],
    });
  });

  it('says so when the missed ledgers are past the RPC retention (events null): the positions are read afresh anyway', async () => {
    const { ledger, catchUp } = setUp();
    await catchUp.beforeDecision([POOL]);
    ledger.down = true;
    await catchUp.beforeDecision([POOL]);
    ledger.down = false;
    ledger.latest = 90_000;
    ledger.eventsFail = { rpcCode: -32602 };
    expect(await catchUp.beforeDecision([POOL])).toMatchObject({ fromLedger: 101, events: null, walletPools: [] });
  });

  it('keeps the outage open when the events cannot be read now, and reads them at the next poll', async () => {
    const { ledger, catchUp } = setUp();
    await catchUp.beforeDecision([POOL]);
    ledger.down = true;
    await catchUp.beforeDecision([POOL]);
    ledger.down = false;
    ledger.latest = 105;
    ledger.eventsFail = {};
    expect(await catchUp.beforeDecision([POOL])).toBeUndefined();
    ledger.eventsFail = undefined;
    ledger.latest = 106;
    expect(await catchUp.beforeDecision([POOL])).toMatchObject({ fromLedger: 101, toLedger: 106, reason: 'outage' });
  });
});
