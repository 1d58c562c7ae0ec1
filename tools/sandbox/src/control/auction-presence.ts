import { blendScVal } from '@rp/ledger';
import type { RunningSandbox } from '../sandbox';

/** Whether the pool holds a user liquidation auction against `user`. */
export function hasAuction(sandbox: RunningSandbox, pool: string, user: string): boolean {
  try {
    sandbox.ledger.view(pool, 'get_auction', [blendScVal.scU32(0), blendScVal.scAddress(user)]);
    return true;
  } catch {
    return false;
  }
}

