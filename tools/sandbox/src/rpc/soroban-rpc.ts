import { xdr } from '@stellar/stellar-sdk';
import { feeStatsOf } from '../ledger/congestion/fee-stats';
import { sorobanDataFor } from '../ledger/execution';
import { errorDiagnostic, asDiagnostic } from '../ledger/transactions/results';
import { MalformedEnvelopeError } from '../ledger/transactions/envelope';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { toLedgerEntry } from '../ledger/state/entries';
import { LedgerEvents, type EventsRequest } from './ledger-events';
import { ledgersPage } from './ledger-pages';

export const PROTOCOL_VERSION = 23;
const MAX_LEDGER_ENTRY_KEYS = 200;

/** A JSON-RPC error with the code the real server uses (-32602 invalid params, -32601 unknown method). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Params = Record<string, unknown>;

/**
 * The Soroban RPC methods, answering in the shapes stellar-rpc 23 uses, with valid base64 XDR in every field the
 * SDK decodes. Parameters are taken by name, as the SDK sends them.
 */
export class SorobanRpc {
  private readonly events: LedgerEvents;
  /** Entries as served, encoded once: a real RPC keeps them as XDR and does not encode them per request. */
  private readonly encoded = new EncodedEntries();

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly friendbotUrl: () => string | undefined = () => undefined,
  ) {
    this.events = new LedgerEvents(ledger);
  }

  call(method: string, params: Params): unknown {
    switch (method) {
      case 'getHealth':
        return {
          status: 'healthy',
          latestLedger: this.ledger.latest.sequence,
          oldestLedger: this.ledger.oldest.sequence,
          ledgerRetentionWindow: 17_280,
        };
      case 'getNetwork':
        return {
          passphrase: this.ledger.passphrase,
          protocolVersion: PROTOCOL_VERSION,
          friendbotUrl: this.friendbotUrl(),
        };
      case 'getLatestLedger':
        return {
          id: this.ledger.latest.hash,
          sequence: this.ledger.latest.sequence,
          protocolVersion: PROTOCOL_VERSION,
          closeTime: this.ledger.latest.closeTime.toString(),
        };
      case 'getVersionInfo':
        return {
          version: 'rp-sandbox',
          protocolVersion: PROTOCOL_VERSION,
          commitHash: '',
          buildTimestamp: '',
          captiveCoreVersion: '',
        };
      case 'getFeeStats':
        return feeStatsOf(this.ledger);
      case 'getLedgerEntries':
        return this.getLedgerEntries(params);
      case 'simulateTransaction':
        return this.simulateTransaction(params);
      case 'sendTransaction':
        return this.sendTransaction(params);
      case 'getTransaction':
        return this.getTransaction(params);
      case 'getEvents':
        return this.events.query(params as EventsRequest);
      case 'getLedgers':
        return ledgersPage(this.ledger.history, PROTOCOL_VERSION, params);
      default:
        throw new RpcError(-32601, 'method not found');
    }
  }

  /** The hash `sendTransaction` would report, for faults that drop a transaction without applying it. */
  hashOf(params: Params): string {
    const transaction = requireString(params, 'transaction');
    return this.ledger.hashOf(transaction);
  }

  private getLedgerEntries(params: Params): unknown {
    const keys = params['keys'];
    if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string')) {
      throw new RpcError(-32602, 'keys must be an array of base64 LedgerKey strings');
    }
    if (keys.length > MAX_LEDGER_ENTRY_KEYS) {
      throw new RpcError(-32602, `key count (${keys.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`);
    }
    const entries = (keys as string[]).flatMap((key) => {
      // Entries are filed under their key's canonical base64: a key found as sent needs no decoding. Any other is
      // decoded (refused when it is no key) and looked up canonically.
      const stored =
        this.ledger.entry(key) ??
        this.ledger.entry(decode(() => xdr.LedgerKey.fromXDR(key, 'base64'), 'cannot unmarshal key value'));
      if (!stored) return [];
      return [
        {
          key,
          xdr: this.encoded.of(stored.data),
          lastModifiedLedgerSeq: stored.lastModified,
          ...(stored.liveUntil !== undefined && { liveUntilLedgerSeq: stored.liveUntil }),
        },
      ];
    });
    return { entries, latestLedger: this.ledger.latest.sequence };
  }

  private simulateTransaction(params: Params): unknown {
    const transaction = requireString(params, 'transaction');
    const latestLedger = this.ledger.latest.sequence;
    let execution;
    try {
      execution = this.ledger.simulate(transaction);
    } catch (error) {
      if (error instanceof MalformedEnvelopeError) return { error: error.message, latestLedger };
      throw error;
    }
    if (execution.error) {
      return {
        error: execution.error.simulationText,
        events: [errorDiagnostic(execution.error).toXDR('base64')],
        latestLedger,
      };
    }
    const data = sorobanDataFor(execution);
    return {
      transactionData: data.toXDR('base64'),
      minResourceFee: data.resourceFee().toString(),
      events: execution.events.map((event) => asDiagnostic(event).toXDR('base64')),
      results: [
        {
          auth: execution.auth.map((entry) => entry.toXDR('base64')),
          xdr: (execution.returnValue ?? xdr.ScVal.scvVoid()).toXDR('base64'),
        },
      ],
      cost: { cpuInsns: String(execution.instructions), memBytes: String(execution.instructions / 2) },
      stateChanges: execution.changes.map((change) => ({
        type: !change.before ? 'created' : !change.after ? 'deleted' : 'updated',
        key: change.key,
        before: change.before ? toLedgerEntry(change.before).toXDR('base64') : null,
        after: change.after ? toLedgerEntry(change.after).toXDR('base64') : null,
      })),
      latestLedger,
    };
  }

  private sendTransaction(params: Params): unknown {
    const transaction = requireString(params, 'transaction');
    const outcome = decode(() => this.ledger.submit(transaction), 'invalid transaction envelope');
    return {
      status: outcome.status,
      hash: outcome.hash,
      latestLedger: this.ledger.latest.sequence,
      latestLedgerCloseTime: this.ledger.latest.closeTime.toString(),
      ...(outcome.status === 'ERROR' && { errorResultXdr: outcome.errorResult.toXDR('base64') }),
    };
  }

  private getTransaction(params: Params): unknown {
    const hash = requireString(params, 'hash');
    if (!/^[0-9a-f]{64}$/i.test(hash)) throw new RpcError(-32602, 'invalid hash: expected 64 hex characters');
    const record = this.ledger.transaction(hash.toLowerCase());
    const window = {
      latestLedger: this.ledger.latest.sequence,
      latestLedgerCloseTime: this.ledger.latest.closeTime.toString(),
      oldestLedger: this.ledger.oldest.sequence,
      oldestLedgerCloseTime: this.ledger.oldest.closeTime.toString(),
    };
    if (!record) return { status: 'NOT_FOUND', txHash: hash, ...window };
    return {
      status: record.status,
      txHash: record.hash,
      ...window,
      applicationOrder: record.applicationOrder,
      feeBump: record.feeBump,
      envelopeXdr: record.envelopeXdr,
      resultXdr: record.resultXdr,
      resultMetaXdr: record.resultMetaXdr,
      ledger: record.ledger,
      createdAt: record.createdAt.toString(),
      ...(record.diagnosticEventsXdr.length > 0 && { diagnosticEventsXdr: record.diagnosticEventsXdr }),
      events: { contractEventsXdr: [record.contractEventsXdr], transactionEventsXdr: [] },
    };
  }
}

/**
 * Base64 XDR of ledger entry data, encoded once per entry: the ledger replaces an entry's data on every change (it
 * never edits one in place), so an entry's encoding stays true for as long as the entry lives.
 */
class EncodedEntries {
  private readonly cache = new WeakMap<xdr.LedgerEntryData, string>();

  of(data: xdr.LedgerEntryData): string {
    let encoded = this.cache.get(data);
    if (encoded === undefined) {
      encoded = data.toXDR('base64');
      this.cache.set(data, encoded);
    }
    return encoded;
  }
}

function requireString(params: Params, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || value.length === 0) throw new RpcError(-32602, `${name} is required`);
  return value;
}

function decode<T>(parse: () => T, message: string): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw new RpcError(-32602, `${message}: ${(error as Error).message}`);
  }
}
