/**
 * Error codes of the transaction builder: the spec's six, the submission failure of DECISIONS.md, and the refusals
 * the spec leaves open (who may submit what, proposals that ended, the ledger being out of reach).
 */
export const TxbErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  NO_POSITION_FOUND: 'NO_POSITION_FOUND',
  NO_DEBT_TO_REPAY: 'NO_DEBT_TO_REPAY',
  NO_COLLATERAL_TO_LIQUIDATE: 'NO_COLLATERAL_TO_LIQUIDATE',
  SIMULATION_FAILED: 'SIMULATION_FAILED',
  TOO_MANY_OPERATIONS: 'TOO_MANY_OPERATIONS',
  SUBMISSION_FAILED: 'SUBMISSION_FAILED',
  /** `poolAddress` is not a Blend pool on this network (404). */
  POOL_NOT_FOUND: 'POOL_NOT_FOUND',
  /** The wallet's account does not exist on the ledger (404). */
  ACCOUNT_NOT_FOUND: 'ACCOUNT_NOT_FOUND',
  /** A partial unwind whose target health factor the position already has (422). */
  TARGET_ALREADY_REACHED: 'TARGET_ALREADY_REACHED',
  /** No unwind can be built: no swap route for the debt, or more than one debt the wallet cannot cover (422). */
  UNWIND_NOT_POSSIBLE: 'UNWIND_NOT_POSSIBLE',
  /** A RESCUE the wallet cannot bring to health with what it holds, or a pool that refuses request 9 (422). */
  RESCUE_NOT_POSSIBLE: 'RESCUE_NOT_POSSIBLE',
  /** A RESCUE of a wallet no liquidation auction runs against in the pool (404). */
  AUCTION_NOT_FOUND: 'AUCTION_NOT_FOUND',
  /** The oracle has no usable price for an asset of the position (422). */
  PRICE_UNAVAILABLE: 'PRICE_UNAVAILABLE',
  /** The signed envelope's hash matches none of the caller's proposals (404: not found or not yours). */
  PROPOSAL_NOT_FOUND: 'PROPOSAL_NOT_FOUND',
  /** The proposal's lifetime (and its transaction's time bounds) ran out before it was submitted (410). */
  PROPOSAL_EXPIRED: 'PROPOSAL_EXPIRED',
  /** The envelope carries no signature (400). */
  TRANSACTION_UNSIGNED: 'TRANSACTION_UNSIGNED',
  /** The envelope was signed for another network than the one this service builds for (400). */
  WRONG_NETWORK: 'WRONG_NETWORK',
  /** `rpcUrl` is not on `TXB_ALLOWED_RPC_URLS` (400, and no call is made to it). */
  RPC_URL_NOT_ALLOWED: 'RPC_URL_NOT_ALLOWED',
  /** The ledger RPC failed or did not answer (502). */
  LEDGER_UNAVAILABLE: 'LEDGER_UNAVAILABLE',
  /** The ledger asked to resend later; the transaction is kept and resent by the tracker (503). */
  LEDGER_BUSY: 'LEDGER_BUSY',
  /** No `CONTRACT_RPC_URL` (503), or an UNWIND that needs a flash loan without `TXB_UNWIND_RECEIVER` (503). */
  NOT_CONFIGURED: 'NOT_CONFIGURED',
  /** Proposals could not be read or written (Redis did not answer in time) (503). */
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
} as const;
export type TxbErrorCode = (typeof TxbErrorCode)[keyof typeof TxbErrorCode];

export const TXB_ERROR_CODES: readonly TxbErrorCode[] = Object.values(TxbErrorCode);
