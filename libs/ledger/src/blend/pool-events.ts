import { Address, type rpc, type xdr } from '@stellar/stellar-sdk';

/** Anything that answers `getEvents` (our `LedgerRpc`, or `rpc.Server`). */
export interface EventsSource {
  getEvents(request: rpc.Api.GetEventsRequest): Promise<rpc.Api.GetEventsResponse>;
}

/** Who the pools' events name, from a ledger on. */
export interface PoolActivity {
  /** Pool -> addresses named in its events' topics (users: `from`, `to`, auction users). */
  readonly touched: Map<string, Set<string>>;
  /** Pool -> users a user liquidation auction was started against (`new_auction`, type 0); absent: none. */
  readonly newAuctions?: Map<string, Set<string>>;
  readonly events: number;
  /** The RPC's latest ledger as of the last page. */
  readonly latestLedger: number;
}

/** stellar-rpc's limits: 5 filters per request, 5 contract ids per filter. */
const IDS_PER_FILTER = 5;
const FILTERS_PER_REQUEST = 5;
const PAGE_SIZE = 1000;

/**
 * The addresses named in the events of `pools` from `startLedger` on, every page read. Blend pools publish each
 * change of a user's positions as an event whose topics name the user (`supply_collateral`, `borrow`, `repay`,
 * `withdraw_collateral`, `flash_loan`: (name, asset, from); auctions: (name, type, user)), so these are exactly the
 * users whose positions may have changed. A `startLedger` outside the RPC's retention window fails: the caller
 * cannot know who changed and must read everyone again.
 */
export async function poolActivitySince(
  source: EventsSource,
  pools: readonly string[],
  startLedger: number,
  pageSize = PAGE_SIZE,
): Promise<PoolActivity> {
  const touched = new Map<string, Set<string>>(pools.map((pool) => [pool, new Set<string>()]));
  const newAuctions = new Map<string, Set<string>>();
  let events = 0;
  let latestLedger = 0;
  const perRequest = IDS_PER_FILTER * FILTERS_PER_REQUEST;
  for (let start = 0; start < pools.length; start += perRequest) {
    const group = pools.slice(start, start + perRequest);
    const filters: rpc.Api.EventFilter[] = [];
    for (let i = 0; i < group.length; i += IDS_PER_FILTER) {
      filters.push({ type: 'contract', contractIds: group.slice(i, i + IDS_PER_FILTER) });
    }
    let page = await source.getEvents({ filters, startLedger, limit: pageSize });
    for (;;) {
      latestLedger = Math.max(latestLedger, page.latestLedger);
      for (const event of page.events) {
        events += 1;
        const pool = event.contractId?.contractId();
        const named = pool === undefined ? undefined : touched.get(pool);
        if (!named) continue;
        for (const topic of event.topic) {
          const address = addressOf(topic);
          if (address !== undefined && address !== pool) named.add(address);
        }
        const started = startedAuctionUser(event.topic);
        if (pool !== undefined && started !== undefined) {
          newAuctions.set(pool, (newAuctions.get(pool) ?? new Set()).add(started));
        }
      }
      if (page.events.length < pageSize || !page.cursor) break;
      page = await source.getEvents({ filters, cursor: page.cursor, limit: pageSize });
    }
  }
  return { touched, newAuctions, events, latestLedger };
}

/** The user of a `new_auction` event of a user liquidation: topics (`new_auction`, 0, user). */
function startedAuctionUser(topics: readonly xdr.ScVal[]): string | undefined {
  const [name, type, user] = topics;
  if (name?.switch().name !== 'scvSymbol' || name.sym().toString() !== 'new_auction') return undefined;
  if (type?.switch().name !== 'scvU32' || type.u32() !== 0 || user === undefined) return undefined;
  return addressOf(user);
}

function addressOf(value: xdr.ScVal): string | undefined {
  if (value.switch().name !== 'scvAddress') return undefined;
  return Address.fromScAddress(value.address()).toString();
}
