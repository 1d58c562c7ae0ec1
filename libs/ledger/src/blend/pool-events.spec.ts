import { Contract, Keypair, StrKey, type rpc } from '@stellar/stellar-sdk';
import { type EventsSource, poolActivitySince } from './pool-events';
import { scAddress, scI128, scSymbol } from './scval';

const contract = (seed: number) => StrKey.encodeContract(Buffer.alloc(32, seed));
const POOL = contract(1);
const OTHER_POOL = contract(2);
const USDC = contract(3);
const ALICE = Keypair.random().publicKey();
const BOB = Keypair.random().publicKey();

function event(pool: string, name: string, user: string, id: number): rpc.Api.EventResponse {
  return {
    id: String(id).padStart(19, '0'),
    type: 'contract',
    ledger: 10,
    ledgerClosedAt: '2026-01-01T00:00:00Z',
    transactionIndex: 1,
    operationIndex: 0,
    inSuccessfulContractCall: true,
    txHash: '00',
    contractId: new Contract(pool),
    topic: [scSymbol(name), scAddress(USDC), scAddress(user)],
    value: scI128(5n),
  };
}

/** A fake RPC serving `all` in pages, recording each request. */
function source(all: rpc.Api.EventResponse[]): EventsSource & { requests: rpc.Api.GetEventsRequest[] } {
  const requests: rpc.Api.GetEventsRequest[] = [];
  return {
    requests,
    async getEvents(request) {
      requests.push(request);
      const from = request.cursor === undefined ? 0 : Number(request.cursor);
      const page = all.slice(from, from + (request.limit ?? 100));
      return {
        events: page,
        cursor: String(from + page.length),
        latestLedger: 12,
        oldestLedger: 1,
        latestLedgerCloseTime: '0',
        oldestLedgerCloseTime: '0',
      };
    },
  };
}

describe('poolActivitySince', () => {
  it('names the users of every pool event, page after page, from the start ledger', async () => {
    const rpc = source([
      event(POOL, 'supply_collateral', ALICE, 1),
      event(POOL, 'borrow', ALICE, 2),
      event(OTHER_POOL, 'repay', BOB, 3),
    ]);
    const activity = await poolActivitySince(rpc, [POOL, OTHER_POOL], 7, 2);
    expect(activity.events).toBe(3);
    expect(activity.latestLedger).toBe(12);
    // The asset (a contract) is named too; only users matter to the caller, who looks its wallets up.
    expect(activity.touched.get(POOL)).toEqual(new Set([USDC, ALICE]));
    expect(activity.touched.get(OTHER_POOL)).toEqual(new Set([USDC, BOB]));
    expect(rpc.requests).toEqual([
      { filters: [{ type: 'contract', contractIds: [POOL, OTHER_POOL] }], startLedger: 7, limit: 2 },
      { filters: [{ type: 'contract', contractIds: [POOL, OTHER_POOL] }], cursor: '2', limit: 2 },
    ]);
  });

  it('asks for at most five contracts per filter and five filters per request', async () => {
    const pools = Array.from({ length: 27 }, (_, i) => contract(100 + i));
    const rpc = source([]);
    const activity = await poolActivitySince(rpc, pools, 1);
    expect(rpc.requests).toHaveLength(2);
    expect(rpc.requests[0].filters.map((f) => f.contractIds?.length)).toEqual([5, 5, 5, 5, 5]);
    expect(rpc.requests[1].filters.map((f) => f.contractIds)).toEqual([[pools[25], pools[26]]]);
    expect(activity.touched.size).toBe(27);
    expect(activity.events).toBe(0);
  });

  it('ignores events of contracts it did not ask about', async () => {
    const activity = await poolActivitySince(source([event(contract(9), 'borrow', ALICE, 1)]), [POOL], 1);
    expect(activity.touched.get(POOL)?.size).toBe(0);
  });
});
