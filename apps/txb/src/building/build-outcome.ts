import type { BuildResponse, ProposalMetadata } from '@rp/contracts';
import type { InvocationOperation } from '@rp/ledger';

/** Why a build was refused; the HTTP edge turns each into its status and code (`txb-http-errors.ts`). */
export type BuildRefusal =
  | { readonly code: 'POOL_NOT_FOUND'; readonly pool: string }
  | { readonly code: 'NO_POSITION_FOUND'; readonly pool: string; readonly token?: string }
  | { readonly code: 'ACCOUNT_NOT_FOUND'; readonly wallet: string }
  | { readonly code: 'NO_DEBT_TO_REPAY'; readonly token?: string }
  | { readonly code: 'NO_COLLATERAL_TO_LIQUIDATE'; readonly token: string }
  | { readonly code: 'TOO_MANY_OPERATIONS'; readonly operations: number }
  | {
      readonly code: 'SIMULATION_FAILED';
      readonly detail: string;
      readonly contractError?: { readonly code: number; readonly name?: string };
    }
  | { readonly code: 'TARGET_ALREADY_REACHED'; readonly healthFactor: number }
  | { readonly code: 'UNWIND_NOT_POSSIBLE'; readonly detail: string }
  | { readonly code: 'RESCUE_NOT_POSSIBLE'; readonly detail: string }
  | { readonly code: 'AUCTION_NOT_FOUND'; readonly wallet: string; readonly pool: string }
  | { readonly code: 'PRICE_UNAVAILABLE'; readonly asset: string }
  | { readonly code: 'RECEIVER_NOT_CONFIGURED' };

export type BuildOutcome =
  | { readonly ok: true; readonly answer: BuildResponse }
  | { readonly ok: false; readonly refusal: BuildRefusal };

export const refused = (refusal: BuildRefusal): { ok: false; refusal: BuildRefusal } => ({ ok: false, refusal });

/** One action, ready to be put in a transaction: the pool (or token) invocation and what to tell the caller. */
export interface ActionPlan {
  readonly operation: InvocationOperation;
  /** Requests in the invocation, the flash loan counted as one. */
  readonly operations: number;
  readonly metadata: ProposalMetadata;
  /** False for an approval: the position is the same afterwards. */
  readonly changesPosition: boolean;
  readonly capped?: { token: string; asked: bigint; used: bigint };
  /** The most the wallet pays in one token (REPAY's padded amount), for the balance warning. */
  readonly maxCost?: { token: string; amount: bigint };
  readonly approval?: { token: string; amount: bigint; expirationLedger: number };
}

/** An amount in the oracle's base units (a collateral value, the pool's minimum) as a refusal's text shows it. */
export const baseValue = (value: bigint, oracleDecimals: number): string =>
  (Number(value) / 10 ** oracleDecimals).toFixed(2);

export const isRefusal = (value: ActionPlan | BuildRefusal): value is BuildRefusal => 'code' in value;
