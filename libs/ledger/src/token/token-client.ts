import {
  Account,
  Address,
  BASE_FEE,
  Contract,
  TransactionBuilder,
  nativeToScVal,
  scValToNative,
  type xdr,
} from '@stellar/stellar-sdk';
import { InvalidAddressError, isContractAddress, isHolderAddress } from '../network/addresses';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { simulate } from '../transactions/simulate';
import { assertTokenAmount } from './token-amount';

/** Simulation needs a well-formed source, not an existing one: the all-zero ed25519 key. */
export const SIMULATION_SOURCE = 'GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF';

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

  private async readString(fn: string): Promise<string> {
    const value = await this.read(fn);
    if (typeof value !== 'string') throw new UnexpectedTokenValueError(fn, this.contract.contractId());
    return value;
  }

  private async read(fn: string, ...args: xdr.ScVal[]): Promise<unknown> {
    const tx = new TransactionBuilder(new Account(this.source, '0'), {
      fee: BASE_FEE,
      networkPassphrase: await this.rpc.networkPassphrase(),
    })
      .addOperation(this.contract.call(fn, ...args))
      .setTimeout(0)
      .build();
    const simulation = await simulate(this.rpc, tx);
    const retval = simulation.result?.retval;
    if (!retval) throw new UnexpectedTokenValueError(fn, this.contract.contractId());
    return scValToNative(retval);
  }
}

function holder(address: string, field: string): xdr.ScVal {
  if (!isHolderAddress(address)) throw new InvalidAddressError(field);
  return Address.fromString(address).toScVal();
}
