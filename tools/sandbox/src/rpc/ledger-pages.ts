import { xdr } from '@stellar/stellar-sdk';
import type { ClosedLedger, LedgerHistory } from '../ledger/ledger-history';
import { RpcError } from './soroban-rpc';

/** stellar-rpc's default and largest page of `getLedgers`. */
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 200;

type Params = Record<string, unknown>;

/**
 * `getLedgers` as stellar-rpc 23 answers it: closed ledgers from `startLedger` (or after `pagination.cursor`), each
 * with its close time and valid `LedgerHeaderHistoryEntry` and `LedgerCloseMeta` XDR (the SDK decodes both).
 * Clients measure the network's ledger close time from it.
 */
export function ledgersPage(history: LedgerHistory, protocol: number, params: Params): unknown {
  const pagination = (params['pagination'] ?? {}) as { cursor?: unknown; limit?: unknown };
  const limit = pagination.limit === undefined ? DEFAULT_LIMIT : Number(pagination.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RpcError(-32602, `limit must be between 1 and ${MAX_LIMIT}`);
  }
  const start =
    pagination.cursor !== undefined ? Number(pagination.cursor) + 1 : Number(params['startLedger'] ?? Number.NaN);
  const { oldest, latest } = history;
  if (!Number.isInteger(start) || start < oldest.sequence || start > latest.sequence) {
    throw new RpcError(
      -32602,
      `start ledger must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence}`,
    );
  }
  const ledgers: ClosedLedger[] = [];
  for (let sequence = start; sequence <= latest.sequence && ledgers.length < limit; sequence += 1) {
    const ledger = history.ledger(sequence);
    if (ledger) ledgers.push(ledger);
  }
  return {
    ledgers: ledgers.map((ledger) => {
      const entry = headerEntry(history, ledger, protocol);
      return {
        hash: ledger.hash,
        sequence: ledger.sequence,
        ledgerCloseTime: ledger.closeTime.toString(),
        headerXdr: entry.toXDR('base64'),
        metadataXdr: closeMeta(entry).toXDR('base64'),
      };
    }),
    latestLedger: latest.sequence,
    latestLedgerCloseTime: latest.closeTime.toString(),
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTime: oldest.closeTime.toString(),
    cursor: String(ledgers.at(-1)?.sequence ?? start - 1),
  };
}

function hashOf(hex: string | undefined): Buffer {
  return hex ? Buffer.from(hex, 'hex') : Buffer.alloc(32);
}

function headerEntry(history: LedgerHistory, ledger: ClosedLedger, protocol: number): xdr.LedgerHeaderHistoryEntry {
  const previous = hashOf(history.ledger(ledger.sequence - 1)?.hash);
  const zero = Buffer.alloc(32);
  return new xdr.LedgerHeaderHistoryEntry({
    hash: hashOf(ledger.hash),
    header: new xdr.LedgerHeader({
      ledgerVersion: protocol,
      previousLedgerHash: previous,
      scpValue: new xdr.StellarValue({
        txSetHash: zero,
        closeTime: xdr.Uint64.fromString(ledger.closeTime.toString()),
        upgrades: [],
        ext: xdr.StellarValueExt.stellarValueBasic(),
      }),
      txSetResultHash: zero,
      bucketListHash: zero,
      ledgerSeq: ledger.sequence,
      totalCoins: xdr.Int64.fromString('1000000000000000000'),
      feePool: xdr.Int64.fromString('0'),
      inflationSeq: 0,
      idPool: xdr.Uint64.fromString('0'),
      baseFee: 100,
      baseReserve: 5_000_000,
      maxTxSetSize: 1000,
      skipList: [zero, zero, zero, zero],
      ext: new xdr.LedgerHeaderExt(0),
    }),
    ext: new xdr.LedgerHeaderHistoryEntryExt(0),
  });
}

/** A version-0 close meta: the header and an empty transaction set (the sandbox serves transactions elsewhere). */
function closeMeta(entry: xdr.LedgerHeaderHistoryEntry): xdr.LedgerCloseMeta {
  return new xdr.LedgerCloseMeta(
    0,
    new xdr.LedgerCloseMetaV0({
      ledgerHeader: entry,
      txSet: new xdr.TransactionSet({ previousLedgerHash: entry.header().previousLedgerHash(), txes: [] }),
      txProcessing: [],
      upgradesProcessing: [],
      scpInfo: [],
    }),
  );
}
