import {
  BLEND_POOL_ERROR,
  MIN_HEALTH_FACTOR,
  REQUEST_TYPES,
  type FlashLoan,
  type Positions,
  type Request,
  blendScVal,
  isHealthFactorUnder,
  positionData,
  toDTokenUp,
} from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';
import { type Actions, buildActions, emitPoolEvent } from './requests';
import {
  PoolState,
  effectiveCount,
  requireReserveActionAllowed,
  requireUtilizationBelow100,
  requireUtilizationBelowMax,
} from './pool-state';
import { UserState } from './user-state';

/** pool/src/pool/submit.rs `execute_submit`: apply requests, validate, move tokens, store. */
export function executeSubmit(
  env: ContractEnv,
  addresses: { from: string; spender: string; to: string },
  requests: readonly Request[],
  useAllowance: boolean,
): Positions {
  const { from, spender, to } = addresses;
  if (from === env.address || spender === env.address || to === env.address) env.fail(BLEND_POOL_ERROR.BadRequest);
  const pool = new PoolState(env);
  const user = new UserState(env, from, pool.storage.positions(from));
  const previousCount = effectiveCount(user.positions);
  const actions = buildActions(env, pool, user, requests);
  validateSubmit(env, pool, user, previousCount, actions.checkHealth, actions.checkMaxUtil);
  if (useAllowance) transferWithAllowance(env, actions, spender, to);
  else transferDirect(env, actions, spender, to);
  pool.storeCachedReserves();
  pool.storage.setPositions(from, user.positions);
  return user.positions;
}

/**
 * `execute_submit_with_flash_loan`: borrow `flashLoan.amount` to `from`, apply the requests, check health, send the
 * loan to the receiver, call its `exec_op(from, asset, amount, 0)`, then net the requests' transfers with
 * allowance from `from`.
 */
export function executeFlashLoan(
  env: ContractEnv,
  from: string,
  flashLoan: FlashLoan,
  requests: readonly Request[],
): Positions {
  if (from === env.address) env.fail(BLEND_POOL_ERROR.BadRequest);
  const pool = new PoolState(env);
  const user = new UserState(env, from, pool.storage.positions(from));
  const previousCount = effectiveCount(user.positions);

  pool.requireActionAllowed(REQUEST_TYPES.Borrow);
  const reserve = pool.loadReserve(flashLoan.asset, true);
  const minted = toDTokenUp(reserve, flashLoan.amount);
  user.add('liabilities', reserve, minted);
  requireReserveActionAllowed(env, reserve, REQUEST_TYPES.Borrow);
  requireUtilizationBelow100(env, reserve);
  emitPoolEvent(env, 'flash_loan', flashLoan.asset, from, flashLoan.amount, minted, flashLoan.contract);

  const actions = buildActions(env, pool, user, requests);
  if (!actions.checkMaxUtil.includes(flashLoan.asset)) actions.checkMaxUtil.push(flashLoan.asset);
  validateSubmit(env, pool, user, previousCount, true, actions.checkMaxUtil);

  const amount = blendScVal.scI128(flashLoan.amount);
  env.call(flashLoan.asset, 'transfer', [
    blendScVal.scAddress(env.address),
    blendScVal.scAddress(flashLoan.contract),
    amount,
  ]);
  env.call(flashLoan.contract, 'exec_op', [
    blendScVal.scAddress(from),
    blendScVal.scAddress(flashLoan.asset),
    amount,
    blendScVal.scI128(0n),
  ]);
  transferWithAllowance(env, actions, from, from);
  pool.storeCachedReserves();
  pool.storage.setPositions(from, user.positions);
  return user.positions;
}

/** `validate_submit`: max positions, no open liquidation, max utilization, then health and min collateral. */
function validateSubmit(
  env: ContractEnv,
  pool: PoolState,
  user: UserState,
  previousCount: number,
  checkHealth: boolean,
  checkMaxUtil: readonly string[],
): void {
  pool.requireUnderMax(user.positions, previousCount);
  if (pool.storage.hasLiquidationAuction(user.address)) env.fail(BLEND_POOL_ERROR.AuctionInProgress);
  for (const asset of checkMaxUtil) requireUtilizationBelowMax(env, pool.loadReserve(asset, false));
  if (!checkHealth || !user.hasLiabilities()) return;
  const reserves = pool.storage.reserveList().map((asset) => pool.loadReserve(asset, false));
  const data = positionData(reserves, user.positions, (asset) => pool.loadPrice(asset), pool.loadPriceDecimals());
  if (isHealthFactorUnder(data, MIN_HEALTH_FACTOR)) env.fail(BLEND_POOL_ERROR.InvalidHf);
  if (data.collateralBase < pool.config.minCollateral) env.fail(BLEND_POOL_ERROR.MinCollateralNotMet);
}

/** `handle_transfer_with_allowance`: one net transfer per token, pulling with `transfer_from` when owed. */
function transferWithAllowance(env: ContractEnv, actions: Actions, spender: string, to: string): void {
  const net = new Map<string, bigint>();
  for (const [asset, amount] of actions.spenderTransfer) net.set(asset, (net.get(asset) ?? 0n) - amount);
  for (const [asset, amount] of actions.poolTransfer) net.set(asset, (net.get(asset) ?? 0n) + amount);
  const pool = blendScVal.scAddress(env.address);
  for (const [asset, amount] of net) {
    if (amount < 0n) {
      env.call(asset, 'transfer_from', [pool, blendScVal.scAddress(spender), pool, blendScVal.scI128(-amount)]);
    } else if (amount > 0n) {
      env.call(asset, 'transfer', [pool, blendScVal.scAddress(to), blendScVal.scI128(amount)]);
    }
  }
}

/** `handle_transfers`: every inbound sum first, then every outbound one (not netted, as the real pool does). */
function transferDirect(env: ContractEnv, actions: Actions, spender: string, to: string): void {
  const pool = blendScVal.scAddress(env.address);
  for (const [asset, amount] of actions.spenderTransfer) {
    env.call(asset, 'transfer', [blendScVal.scAddress(spender), pool, blendScVal.scI128(amount)]);
  }
  for (const [asset, amount] of actions.poolTransfer) {
    env.call(asset, 'transfer', [pool, blendScVal.scAddress(to), blendScVal.scI128(amount)]);
  }
}
