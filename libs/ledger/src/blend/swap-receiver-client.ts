import { Address, nativeToScVal, scValToNative } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { readContract } from '../transactions/contract-read';

/**
 * The flash-loan receiver UNWIND uses (`TXB_UNWIND_RECEIVER`), as far as a builder needs it. The contract it
 * expects (docs/adr/010-unwind-construction.md): `exec_op(caller, token, amount, fee)` sells the `amount` of `token`
 * it was lent for `route(token)` and pays the proceeds to `caller`; `route(token_in) -> Option<Address>` and
 * `quote(token_in, amount_in) -> i128` are read-only and say what that sale yields now.
 */
export class SwapReceiverClient {
  constructor(
    private readonly rpc: LedgerRpc,
    readonly contractId: string,
  ) {}

  /** The token `tokenIn` is sold for, or `undefined` when the receiver has no route for it. */
  async route(tokenIn: string): Promise<string | undefined> {
    const value = await readContract(this.rpc, this.contractId, 'route', [new Address(tokenIn).toScVal()]);
    if (value.switch().name === 'scvVoid') return undefined;
    return Address.fromScVal(value).toString();
  }

  /** What selling `amountIn` of `tokenIn` pays now, fee included. */
  async quote(tokenIn: string, amountIn: bigint): Promise<bigint> {
    const value = await readContract(this.rpc, this.contractId, 'quote', [
      new Address(tokenIn).toScVal(),
      nativeToScVal(amountIn, { type: 'i128' }),
    ]);
    const out = scValToNative(value) as unknown;
    if (typeof out !== 'bigint') throw new TypeError(`quote of ${this.contractId} returned a ${typeof out}`);
    return out;
  }
}
