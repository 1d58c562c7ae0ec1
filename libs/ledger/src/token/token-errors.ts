import type { ContractErrorNames } from '../transactions/contract-errors';

/**
 * Errors of the Stellar Asset Contract (soroban-env-host `ContractError`), which SEP-41 tokens reuse: a simulation
 * that fails in a token (BalanceError 10 when the wallet holds too little) is reported by name.
 */
export const TOKEN_CONTRACT_ERRORS: ContractErrorNames = Object.freeze({
  1: 'InternalError',
  2: 'OperationNotSupportedError',
  3: 'AlreadyInitializedError',
  4: 'UnauthorizedError',
  5: 'AuthenticationError',
  6: 'AccountMissingError',
  7: 'AccountIsNotClassic',
  8: 'NegativeAmountError',
  9: 'AllowanceError',
  10: 'BalanceError',
  11: 'BalanceDeauthorizedError',
  12: 'OverflowError',
  13: 'TrustlineMissingError',
});
