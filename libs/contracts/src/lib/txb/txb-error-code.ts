/** Error codes of the transaction builder (spec) plus the submission failure of DECISIONS.md. */
export const TXB_ERROR_CODES = [
  'VALIDATION_FAILED',
  'NO_POSITION_FOUND',
  'NO_DEBT_TO_REPAY',
  'NO_COLLATERAL_TO_LIQUIDATE',
  'SIMULATION_FAILED',
  'TOO_MANY_OPERATIONS',
  'SUBMISSION_FAILED',
] as const;
export type TxbErrorCode = (typeof TXB_ERROR_CODES)[number];
