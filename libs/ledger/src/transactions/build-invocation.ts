import type { LedgerNetwork } from '@rp/contracts';
import { Account, BASE_FEE, type Transaction, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { InvalidAddressError, isAccountAddress } from '../network/addresses';
import { networkPassphrase } from '../network/ledger-network';

interface InvocationBase {
  op: xdr.Operation;
  /** Inclusion fee in stroops; simulation adds the resource fee on top. Default: the network minimum. */
  fee?: string | number;
  /** Last moment the transaction may be included: a Date or unix seconds. */
  validUntil: Date | number;
  network: LedgerNetwork;
}

export type InvocationRequest = InvocationBase &
  (
    | {
        /** The paying, sequence-consuming account (`G...`). */
        source: string;
        /** The account's current sequence number; the transaction uses the next one. */
        sequence: string | bigint;
      }
    | {
        /** Loaded account; its sequence is incremented by the build, as the SDK does. */
        source: Account;
      }
  );

export class InvalidValidityError extends Error {
  override readonly name = 'InvalidValidityError';

  constructor() {
    super('validUntil must be a Date or a positive whole number of unix seconds');
  }
}

/** Unix seconds of `validUntil`, rejecting what would make an unbounded or malformed time bound. */
export function validUntilSeconds(validUntil: Date | number): number {
  const seconds = validUntil instanceof Date ? Math.floor(validUntil.getTime() / 1000) : validUntil;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new InvalidValidityError();
  return seconds;
}

/**
 * One operation in a transaction valid from now until `validUntil` (time bounds 0..validUntil). An explicit
 * upper bound rather than a relative timeout, so a retry after a crash cannot land later than intended.
 */
export function buildInvocation(request: InvocationRequest): Transaction {
  const account = 'sequence' in request ? accountAt(request.source, request.sequence) : request.source;
  return new TransactionBuilder(account, {
    fee: String(request.fee ?? BASE_FEE),
    networkPassphrase: networkPassphrase(request.network),
  })
    .addOperation(request.op)
    .setTimebounds(0, validUntilSeconds(request.validUntil))
    .build();
}

function accountAt(source: string, sequence: string | bigint): Account {
  if (!isAccountAddress(source)) throw new InvalidAddressError('source');
  return new Account(source, sequence.toString());
}
