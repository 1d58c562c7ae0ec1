import { REQUEST_TYPES, type Request } from './layouts';
import { divCeil } from './math';

/** Basis points in one: 10,000. */
export const BPS_SCALE = 10_000n;

/** `amount` plus `slippageBps` of it, rounded up: the most a request may move (DECISIONS.md, max cost). */
export function withSlippage(amount: bigint, slippageBps: number): bigint {
  return amount + divCeil(amount * BigInt(slippageBps), BPS_SCALE);
}

/** One request of an action on one reserve, and what it is worth to the wallet. */
export interface PlannedRequest {
  readonly request: Request;
  /** What the position moves by (base units), before any slippage padding. */
  readonly amount: bigint;
  /** The request's amount: the most the wallet pays in (Repay) or asks out (WithdrawCollateral). */
  readonly sent: bigint;
  /** The caller asked for more than the position holds; `amount` is the position's. */
  readonly capped: boolean;
}

/**
 * REPAY: a Repay of `requested` (the whole debt when omitted, or when more than the debt was asked for), padded by
 * the slippage: interest accrues until the transaction lands, and the pool refunds whatever exceeds the debt then.
 * `submit` takes the whole request amount from the wallet before refunding, so a wallet that holds the amount but
 * not the padding sends what it holds (less headroom for interest, still the whole amount today).
 */
export function repayRequest(
  asset: string,
  debt: bigint,
  requested: bigint | undefined,
  slippageBps: number,
  walletBalance?: bigint,
): PlannedRequest {
  const capped = requested !== undefined && requested > debt;
  const amount = requested === undefined || capped ? debt : requested;
  const padded = withSlippage(amount, slippageBps);
  const sent =
    walletBalance !== undefined && walletBalance < padded && walletBalance >= amount ? walletBalance : padded;
  return planned(REQUEST_TYPES.Repay, asset, amount, sent, capped);
}

/**
 * LIQUIDATE: a WithdrawCollateral of `requested` of the wallet's own collateral. All of it (omitted, or more than
 * held) asks for the padded amount: the pool pays out what is held then, which has grown with the supply rate.
 */
export function withdrawCollateralRequest(
  asset: string,
  collateral: bigint,
  requested: bigint | undefined,
  slippageBps: number,
): PlannedRequest {
  const capped = requested !== undefined && requested > collateral;
  const everything = requested === undefined || capped;
  const amount = everything ? collateral : requested;
  const sent = everything ? withSlippage(collateral, slippageBps) : requested;
  return planned(REQUEST_TYPES.WithdrawCollateral, asset, amount, sent, capped);
}

function planned(requestType: number, address: string, amount: bigint, sent: bigint, capped: boolean): PlannedRequest {
  return { request: { requestType, address, amount: sent }, amount, sent, capped };
}
