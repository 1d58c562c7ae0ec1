import { REQUEST_TYPES, blendScVal, encodeRequest } from '@rp/ledger';
import type { RunningSandbox } from '../sandbox';
import { xdr } from '@stellar/stellar-sdk';

/** Liquidation percents tried in turn: the pool takes one that leaves the user between 1.03 and 1.15 afterwards. */
const PERCENTS = [50, 40, 60, 30, 70, 25, 80, 20, 90, 15, 100, 10, 5];

/**
 * For tests and benches in process with the sandbox. Starts a user liquidation auction against `user` (health factor below 1.0) as a liquidator would: `new_auction`
 * on the pool with the user's debt as the bid and collateral as the lot, at the first percent the pool sizes.
 */
export function startAuction(
  sandbox: RunningSandbox,
  pool: string,
  user: string,
  bid: readonly string[],
  lot: readonly string[],
): number {
  const addresses = (list: readonly string[]) => xdr.ScVal.scvVec(list.map((a) => blendScVal.scAddress(a)));
  let last: unknown;
  for (const percent of PERCENTS) {
    try {
      sandbox.ledger.invokePrivileged(pool, 'new_auction', [
        blendScVal.scU32(0),
        blendScVal.scAddress(user),
        addresses(bid),
        addresses(lot),
        blendScVal.scU32(percent),
      ]);
      return percent;
    } catch (error) {
      last = error;
    }
  }
  throw new Error(`no percent starts an auction against ${user}: ${(last as Error).message}`);
}

/** Whether the pool holds a user liquidation auction against `user`. */
export function hasAuction(sandbox: RunningSandbox, pool: string, user: string): boolean {
  try {
    sandbox.ledger.view(pool, 'get_auction', [blendScVal.scU32(0), blendScVal.scAddress(user)]);
    return true;
  } catch {
    return false;
  }
}

/** `filler` fills `percent` of the auction against `user` (request 6 in its own `submit`), as a liquidator would. */
export function fillAuction(sandbox: RunningSandbox, pool: string, filler: string, user: string, percent: bigint): void {
  const from = blendScVal.scAddress(filler);
  const fill = encodeRequest({ requestType: REQUEST_TYPES.FillUserLiquidationAuction, address: user, amount: percent });
  sandbox.ledger.invokePrivileged(pool, 'submit', [from, from, from, xdr.ScVal.scvVec([fill])]);
}
