import { xdr } from '@stellar/stellar-sdk';
import {
  BLEND_POOL_ERROR,
  REQUEST_TYPES,
  type Request,
  blendScVal,
  toAssetFromBToken,
  toAssetFromDToken,
  toBTokenDown,
  toBTokenUp,
  toDTokenDown,
  toDTokenUp,
  totalSupply,
} from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';
import { deleteLiquidation, fillUserLiquidation } from './auctions';
import { type PoolState, requireReserveActionAllowed, requireUtilizationBelow100 } from './pool-state';
import type { UserState } from './user-state';

/** pool/src/pool/actions.rs `Actions`: token movements to net at the end, and the checks the requests need. */
export interface Actions {
  /** asset -> amount the spender pays in. */
  readonly spenderTransfer: Map<string, bigint>;
  /** asset -> amount the pool pays out to `to`. */
  readonly poolTransfer: Map<string, bigint>;
  checkHealth: boolean;
  readonly checkMaxUtil: string[];
}

const add = (map: Map<string, bigint>, asset: string, amount: bigint): void => {
  map.set(asset, (map.get(asset) ?? 0n) + amount);
};

/** Pool events as events.rs publishes them: topics (name, asset, from), data (amount, shares). */
export function emitPoolEvent(
  env: ContractEnv,
  name: string,
  asset: string,
  from: string,
  amount: bigint,
  shares: bigint,
  extraTopic?: string,
): void {
  const topics = [blendScVal.scSymbol(name), blendScVal.scAddress(asset), blendScVal.scAddress(from)];
  if (extraTopic !== undefined) topics.push(blendScVal.scAddress(extraTopic));
  env.emit(topics, xdr.ScVal.scvVec([blendScVal.scI128(amount), blendScVal.scI128(shares)]));
}

/**
 * `build_actions_from_request`: applies requests 0-6 and 9 in order; bad debt and interest auction fills (7, 8) are
 * not modelled.
 */
export function buildActions(
  env: ContractEnv,
  pool: PoolState,
  user: UserState,
  requests: readonly Request[],
): Actions {
  const actions: Actions = {
    spenderTransfer: new Map(),
    poolTransfer: new Map(),
    checkHealth: false,
    checkMaxUtil: [],
  };
  for (const request of requests) {
    if (request.amount < 0n) env.fail(BLEND_POOL_ERROR.NegativeAmountError);
    pool.requireActionAllowed(request.requestType);
    const reserve = () => pool.loadReserve(request.address, true);
    const from = user.address;
    switch (request.requestType) {
      case REQUEST_TYPES.Supply:
      case REQUEST_TYPES.SupplyCollateral: {
        const r = reserve();
        requireReserveActionAllowed(env, r, request.requestType);
        const minted = toBTokenDown(r, request.amount);
        user.add(request.requestType === REQUEST_TYPES.Supply ? 'supply' : 'collateral', r, minted);
        add(actions.spenderTransfer, r.asset, request.amount);
        if (totalSupply(r) > r.config.supplyCap) env.fail(BLEND_POOL_ERROR.ExceededSupplyCap);
        const name = request.requestType === REQUEST_TYPES.Supply ? 'supply' : 'supply_collateral';
        emitPoolEvent(env, name, r.asset, from, request.amount, minted);
        break;
      }
      case REQUEST_TYPES.Withdraw:
      case REQUEST_TYPES.WithdrawCollateral: {
        const r = reserve();
        const book = request.requestType === REQUEST_TYPES.Withdraw ? 'supply' : 'collateral';
        // Asking for more than is held pays out everything held.
        const held = user.balance(book, r.config.index);
        let burn = toBTokenUp(r, request.amount);
        let out = request.amount;
        if (burn > held) {
          burn = held;
          out = toAssetFromBToken(r, held);
        }
        user.remove(book, r, burn);
        requireUtilizationBelow100(env, r);
        add(actions.poolTransfer, r.asset, out);
        if (book === 'collateral') actions.checkHealth = true;
        emitPoolEvent(env, book === 'supply' ? 'withdraw' : 'withdraw_collateral', r.asset, from, out, burn);
        break;
      }
      case REQUEST_TYPES.Borrow: {
        const r = reserve();
        requireReserveActionAllowed(env, r, request.requestType);
        const minted = toDTokenUp(r, request.amount);
        user.add('liabilities', r, minted);
        requireUtilizationBelow100(env, r);
        if (!actions.checkMaxUtil.includes(r.asset)) actions.checkMaxUtil.push(r.asset);
        add(actions.poolTransfer, r.asset, request.amount);
        actions.checkHealth = true;
        emitPoolEvent(env, 'borrow', r.asset, from, request.amount, minted);
        break;
      }
      case REQUEST_TYPES.Repay: {
        const r = reserve();
        const owed = user.balance('liabilities', r.config.index);
        const burn = toDTokenDown(r, request.amount);
        add(actions.spenderTransfer, r.asset, request.amount);
        if (burn > owed) {
          // Paying more than owed burns the whole debt and refunds the excess to `to`.
          const debt = toAssetFromDToken(r, owed);
          const refund = request.amount - debt;
          if (refund < 0n) env.fail(BLEND_POOL_ERROR.NegativeAmountError);
          add(actions.poolTransfer, r.asset, refund);
          user.remove('liabilities', r, owed);
          emitPoolEvent(env, 'repay', r.asset, from, debt, owed);
        } else {
          user.remove('liabilities', r, burn);
          emitPoolEvent(env, 'repay', r.asset, from, request.amount, burn);
        }
        break;
      }
      case REQUEST_TYPES.FillUserLiquidationAuction:
        fillUserLiquidation(env, pool, request.address, user, request.amount);
        actions.checkHealth = true;
        break;
      case REQUEST_TYPES.DeleteLiquidationAuction:
        // Only the type counts: the auction deleted is `from`'s own, and `from` must be healthy afterwards.
        deleteLiquidation(env, pool, from);
        actions.checkHealth = true;
        break;
      default:
        // 7 and 8 fill bad debt and interest auctions, which the sandbox does not model.
        env.fail(BLEND_POOL_ERROR.BadRequest, `request type ${request.requestType} is not supported`);
    }
  }
  return actions;
}
