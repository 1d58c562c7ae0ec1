import { createHash } from 'node:crypto';
import { Address, xdr } from '@stellar/stellar-sdk';

export interface ClosedLedger {
  readonly sequence: number;
  /** Hex hash chaining the previous ledger's hash, the sequence and the applied transactions. */
  readonly hash: string;
  /** Close time in unix seconds. */
  readonly closeTime: bigint;
  readonly transactions: readonly string[];
}

/** What `getTransaction` reports about an applied transaction. */
export interface TransactionRecord {
  readonly hash: string;
  readonly status: 'SUCCESS' | 'FAILED';
  readonly ledger: number;
  readonly createdAt: bigint;
  readonly applicationOrder: number;
  readonly feeBump: boolean;
  readonly envelopeXdr: string;
  readonly resultXdr: string;
  readonly resultMetaXdr: string;
  readonly diagnosticEventsXdr: readonly string[];
  readonly contractEventsXdr: readonly string[];
  readonly source: string;
  readonly feeCharged: bigint;
  /** The part of `feeCharged` above the resource fee: what `getFeeStats` reports. */
  readonly inclusionFeeCharged: bigint;
  readonly error?: string;
}

/** The transaction hash under which events of setup calls (made outside any transaction) are published. */
export const SETUP_TRANSACTION_HASH = '0'.repeat(64);

/** A contract event as `getEvents` serves it. */
export interface LedgerEvent {
  readonly id: string;
  readonly ledger: number;
  readonly ledgerClosedAt: string;
  readonly transactionIndex: number;
  readonly operationIndex: number;
  readonly txHash: string;
  readonly contractId: string;
  readonly topic: readonly string[];
  readonly value: string;
}

/** Closed ledgers, applied transactions and their events, kept in memory for the RPC's history queries. */
export class LedgerHistory {
  private readonly ledgers: ClosedLedger[] = [];
  private readonly transactions = new Map<string, TransactionRecord>();
  private readonly events: LedgerEvent[] = [];

  constructor(genesisTime: bigint) {
    this.ledgers.push({ sequence: 1, hash: chainHash('', 1, []), closeTime: genesisTime, transactions: [] });
  }

  get latest(): ClosedLedger {
    return this.ledgers[this.ledgers.length - 1];
  }

  get oldest(): ClosedLedger {
    return this.ledgers[0];
  }

  ledger(sequence: number): ClosedLedger | undefined {
    return this.ledgers[sequence - this.oldest.sequence];
  }

  recentLedgers(count: number): readonly ClosedLedger[] {
    return this.ledgers.slice(-count);
  }

  /**
   * Closes the next ledger with the applied transactions. `setupEventsXdr` are the contract events of setup calls
   * made outside any transaction since the last close (control API: positions opened, prices set): they are
   * published in this ledger, before its transactions' events, under an all-zero transaction hash, so a client
   * following a contract's events sees every change of its state.
   */
  close(
    closeTime: bigint,
    applied: readonly TransactionRecord[],
    setupEventsXdr: readonly string[] = [],
  ): ClosedLedger {
    const previous = this.latest;
    const sequence = previous.sequence + 1;
    const hashes = applied.map((record) => record.hash);
    const ledger = { sequence, hash: chainHash(previous.hash, sequence, hashes), closeTime, transactions: hashes };
    this.ledgers.push(ledger);
    this.recordEventsOf(SETUP_TRANSACTION_HASH, 0, setupEventsXdr, ledger);
    for (const record of applied) {
      this.transactions.set(record.hash, record);
      this.recordEvents(record, ledger);
    }
    return ledger;
  }

  transaction(hash: string): TransactionRecord | undefined {
    return this.transactions.get(hash);
  }

  allTransactions(): TransactionRecord[] {
    return [...this.transactions.values()];
  }

  eventsFrom(startLedger: number): readonly LedgerEvent[] {
    return this.events.filter((event) => event.ledger >= startLedger);
  }

  eventsAfter(cursor: string): readonly LedgerEvent[] {
    return this.events.filter((event) => event.id > cursor);
  }

  private recordEvents(record: TransactionRecord, ledger: ClosedLedger): void {
    this.recordEventsOf(record.hash, record.applicationOrder, record.contractEventsXdr, ledger);
  }

  private recordEventsOf(
    txHash: string,
    applicationOrder: number,
    eventsXdr: readonly string[],
    ledger: ClosedLedger,
  ): void {
    eventsXdr.forEach((eventXdr, index) => {
      const event = xdr.ContractEvent.fromXDR(eventXdr, 'base64');
      const body = event.body().v0();
      const contractId = event.contractId();
      this.events.push({
        id: `${toid(ledger.sequence, applicationOrder, 1)}-${String(index).padStart(10, '0')}`,
        ledger: ledger.sequence,
        ledgerClosedAt: new Date(Number(ledger.closeTime) * 1000).toISOString().replace('.000Z', 'Z'),
        transactionIndex: applicationOrder,
        operationIndex: 0,
        txHash,
        contractId: contractId ? Address.contract(contractId as unknown as Buffer).toString() : '',
        topic: body.topics().map((topic) => topic.toXDR('base64')),
        value: body.data().toXDR('base64'),
      });
    });
  }
}

/** The total order id Horizon and the RPC use for operations: ledger, transaction and operation indexes. */
export function toid(ledger: number, transactionOrder: number, operationOrder: number): string {
  const id = (BigInt(ledger) << 32n) | (BigInt(transactionOrder) << 12n) | BigInt(operationOrder);
  return id.toString().padStart(19, '0');
}

function chainHash(previous: string, sequence: number, transactions: readonly string[]): string {
  return createHash('sha256')
    .update(`${previous}:${sequence}:${transactions.join(',')}`)
    .digest('hex');
}
