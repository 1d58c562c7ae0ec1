import type { LedgerEvent } from '../ledger/ledger-history';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { RpcError } from './soroban-rpc';

export interface EventFilter {
  readonly type?: string;
  readonly contractIds?: readonly string[];
  /** Each topic filter lists base64 ScVals or `*` per position; `**` as the last item matches any rest. */
  readonly topics?: readonly (readonly string[])[];
}

export interface EventsRequest {
  readonly startLedger?: number;
  readonly endLedger?: number;
  readonly filters?: readonly EventFilter[];
  readonly pagination?: { readonly cursor?: string; readonly limit?: number };
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

/** `getEvents`: contract events of closed ledgers, filtered and paged as stellar-rpc does. */
export class LedgerEvents {
  constructor(private readonly ledger: SandboxLedger) {}

  query(request: EventsRequest): unknown {
    const cursor = request.pagination?.cursor;
    const limit = request.pagination?.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new RpcError(-32602, `limit must be between 1 and ${MAX_LIMIT}`);
    }
    if (cursor === undefined && request.startLedger === undefined) {
      throw new RpcError(-32602, 'startLedger or a cursor is required');
    }
    const { oldest, latest } = this.ledger;
    if (
      request.startLedger !== undefined &&
      (request.startLedger < oldest.sequence || request.startLedger > latest.sequence)
    ) {
      throw new RpcError(
        -32602,
        `startLedger must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance`,
      );
    }
    const filters = request.filters ?? [];
    if (filters.length > 5) throw new RpcError(-32602, 'maximum 5 filters per request');
    const candidates = cursor
      ? this.ledger.history.eventsAfter(cursor)
      : this.ledger.history.eventsFrom(request.startLedger ?? 0);
    const end = request.endLedger ?? Number.MAX_SAFE_INTEGER;
    const matching = candidates
      .filter((event) => event.ledger < end)
      .filter((event) => filters.length === 0 || filters.some((filter) => matches(event, filter)))
      .slice(0, limit);
    const page = matching.map((event) => ({
      type: 'contract',
      ledger: event.ledger,
      ledgerClosedAt: event.ledgerClosedAt,
      contractId: event.contractId,
      id: event.id,
      pagingToken: event.id,
      operationIndex: event.operationIndex,
      transactionIndex: event.transactionIndex,
      txHash: event.txHash,
      inSuccessfulContractCall: true,
      topic: event.topic,
      value: event.value,
    }));
    return {
      events: page,
      cursor: page.length > 0 ? page[page.length - 1].id : (cursor ?? ''),
      latestLedger: latest.sequence,
      oldestLedger: oldest.sequence,
      latestLedgerCloseTime: latest.closeTime.toString(),
      oldestLedgerCloseTime: oldest.closeTime.toString(),
    };
  }
}

function matches(event: LedgerEvent, filter: EventFilter): boolean {
  if (filter.type && filter.type !== 'contract') return false;
  if (filter.contractIds?.length && !filter.contractIds.includes(event.contractId)) return false;
  if (!filter.topics?.length) return true;
  return filter.topics.some((pattern) => topicsMatch(event.topic, pattern));
}

function topicsMatch(topics: readonly string[], pattern: readonly string[]): boolean {
  for (let index = 0; index < pattern.length; index += 1) {
    if (pattern[index] === '**') return true;
    if (index >= topics.length) return false;
    if (pattern[index] !== '*' && pattern[index] !== topics[index]) return false;
  }
  return topics.length === pattern.length;
}
