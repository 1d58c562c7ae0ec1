import { Address, Contract, nativeToScVal, scValToNative, type xdr } from '@stellar/stellar-sdk';
import { InvalidAddressError, isContractAddress, isHolderAddress } from '../network/addresses';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { EmptyReadError, SIMULATION_SOURCE, readContract } from '../transactions/contract-read';
import { assertTokenAmount } from './token-amount';

/** A read returned a value of another type than SEP-41 promises (wrong contract?). */
export class UnexpectedTokenValueError extends Error {
  override readonly name = 'UnexpectedTokenValueError';

  constructor(
    readonly fn: string,
    readonly contractId: string,
  ) {
    super(`${fn} of ${contractId} returned an unexpected value`);
  }
}

/** Reads a SEP-41 token by simulation (no fee, no signature) and builds its transfer operation. */
export class TokenClient {
  readonly contract: Contract;

  constructor(
    private readonly rpc: LedgerRpc,
    tokenContract: string,
    private readonly source: string = SIMULATION_SOURCE,
  ) {
    if (!isContractAddress(tokenContract)) throw new InvalidAddressError('tokenContract');
    this.contract = new Contract(tokenContract);
  }

  async balance(address: string): Promise<bigint> {
    const value = await this.read('balance', holder(address, 'address'));
    if (typeof value !== 'bigint') throw new UnexpectedTokenValueError('balance', this.contract.contractId());
    return value;
  }

  async decimals(): Promise<number> {
    const value = await this.read('decimals');
    if (typeof value !== 'number') throw new UnexpectedTokenValueError('decimals', this.contract.contractId());
    return value;
  }

  /** What `spender` may still pull from `from` with `transfer_from` (0 once the approval expired). */
  async allowance(from: string, spender: string): Promise<bigint> {
    const value = await this.read('allowance', holder(from, 'from'), holder(spender, 'spender'));
    if (typeof value !== 'bigint') throw new UnexpectedTokenValueError('allowance', this.contract.contractId());
    return value;
  }

  name(): Promise<string> {
    return this.readString('name');
  }

  symbol(): Promise<string> {
    return this.readString('symbol');
  }

  /** `transfer(from, to, amount)`; the caller simulates it (for auth and resources), signs and submits. */
  transferInvocation(from: string, to: string, amount: bigint): xdr.Operation {
    assertTokenAmount(amount);
    return this.contract.call(
      'transfer',
      holder(from, 'from'),
      holder(to, 'to'),
      nativeToScVal(amount, { type: 'i128' }),
    );
  }

  /**
   * `approve(from, spender, amount, expiration_ledger)`: lets `spender` pull up to `amount` of `from`'s balance with
   * `transfer_from` until the ledger `expirationLedger` (inclusive). The caller simulates, signs and submits it.
   */
  approveInvocation(from: string, spender: string, amount: bigint, expirationLedger: number): xdr.Operation {
    assertTokenAmount(amount);
    if (!Number.isSafeInteger(expirationLedger) || expirationLedger < 0 || expirationLedger > 0xffff_ffff) {
      throw new RangeError('expirationLedger must be a ledger sequence (u32)');
    }
    return this.contract.call(
      'approve',
      holder(from, 'from'),
      holder(spender, 'spender'),
      nativeToScVal(amount, { type: 'i128' }),
      nativeToScVal(expirationLedger, { type: 'u32' }),
    );
  }

  private async readString(fn: string): Promise<string> {
    const value = await this.read(fn);
    if (typeof value !== 'string') throw new UnexpectedTokenValueError(fn, this.contract.contractId());
    return value;
  }

  private async read(fn: string, ...args: xdr.ScVal[]): Promise<unknown> {
    try {
      return scValToNative(await readContract(this.rpc, this.contract.contractId(), fn, args, this.source));
    } catch (error) {
      if (error instanceof EmptyReadError) throw new UnexpectedTokenValueError(fn, this.contract.contractId());
      throw error;
    }
  }
}

function holder(address: string, field: string): xdr.ScVal {
  if (!isHolderAddress(address)) throw new InvalidAddressError(field);
  return Address.fromString(address).toScVal();
}
