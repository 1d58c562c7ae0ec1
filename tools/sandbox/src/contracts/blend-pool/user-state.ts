import { BLEND_POOL_ERROR, type Positions } from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';
import type { LiveReserve } from './pool-state';

type Book = 'liabilities' | 'collateral' | 'supply';

/**
 * pool/src/pool/user.rs `User`: a user's share balances, moved together with the reserve's totals. A balance
 * that reaches zero is removed from its map (it no longer counts toward max_positions). Emissions are not modelled.
 */
export class UserState {
  readonly positions: {
    liabilities: Map<number, bigint>;
    collateral: Map<number, bigint>;
    supply: Map<number, bigint>;
  };

  constructor(
    private readonly env: ContractEnv,
    readonly address: string,
    stored: Positions,
  ) {
    this.positions = {
      liabilities: new Map(stored.liabilities),
      collateral: new Map(stored.collateral),
      supply: new Map(stored.supply),
    };
  }

  balance(book: Book, index: number): bigint {
    return this.positions[book].get(index) ?? 0n;
  }

  hasLiabilities(): boolean {
    return this.positions.liabilities.size > 0;
  }

  add(book: Book, reserve: LiveReserve, amount: bigint): void {
    if (amount <= 0n) {
      this.env.fail(
        book === 'liabilities' ? BLEND_POOL_ERROR.InvalidDTokenMintAmount : BLEND_POOL_ERROR.InvalidBTokenMintAmount,
      );
    }
    const index = reserve.config.index;
    this.positions[book].set(index, this.balance(book, index) + amount);
    if (book === 'liabilities') reserve.data.dSupply += amount;
    else reserve.data.bSupply += amount;
  }

  remove(book: Book, reserve: LiveReserve, amount: bigint): void {
    if (amount <= 0n) {
      this.env.fail(
        book === 'liabilities' ? BLEND_POOL_ERROR.InvalidDTokenBurnAmount : BLEND_POOL_ERROR.InvalidBTokenBurnAmount,
      );
    }
    const index = reserve.config.index;
    const next = this.balance(book, index) - amount;
    if (next < 0n) this.env.fail(BLEND_POOL_ERROR.NegativeAmountError);
    if (next === 0n) this.positions[book].delete(index);
    else this.positions[book].set(index, next);
    if (book === 'liabilities') reserve.data.dSupply -= amount;
    else reserve.data.bSupply -= amount;
  }
}
