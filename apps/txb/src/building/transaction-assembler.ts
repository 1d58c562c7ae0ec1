import { Injectable } from '@nestjs/common';
import {
  type AccountState,
  BLEND_POOL_CALL_ERRORS,
  type InvocationOperation,
  type PreparedInvocation,
  prepareInvocation,
} from '@rp/ledger';
import { TxbLedger } from '../ledger/txb-ledger';

/**
 * Turns one operation into the transaction a wallet signs, on the configured ledger: the wallet as source at its
 * next sequence number, bidding `inclusionFee` per operation, time bounds ending at `validUntil`, simulated and assembled. A refused simulation is
 * `SimulationFailedError`, its code named as a pool call's (the pool's codes, and the token's below them: txb
 * invokes only pools and, for an approval, tokens).
 */
@Injectable()
export class TransactionAssembler {
  constructor(private readonly ledger: TxbLedger) {}

  async assemble(
    source: AccountState,
    operation: InvocationOperation,
    validUntil: Date,
    inclusionFee: bigint,
  ): Promise<PreparedInvocation> {
    return prepareInvocation(this.ledger.rpc(), {
      source,
      operation,
      validUntil,
      inclusionFee,
      network: await this.ledger.network(),
      errorNames: BLEND_POOL_CALL_ERRORS,
    });
  }
}
