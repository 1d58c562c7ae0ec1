import type { ContractErrorNames } from '../transactions/contract-errors';
import { TOKEN_CONTRACT_ERRORS } from '../token/token-errors';

/** Blend v2 pool contract errors (blend-contracts-v2 pool/src/errors.rs, `PoolError`), code -> name. */
export const BLEND_POOL_ERRORS: ContractErrorNames = Object.freeze({
  1: 'InternalError',
  3: 'AlreadyInitializedError',
  4: 'UnauthorizedError',
  8: 'NegativeAmountError',
  10: 'BalanceError',
  12: 'OverflowError',
  1200: 'BadRequest',
  1201: 'InvalidPoolConfigArgs',
  1202: 'InvalidReserveMetadata',
  1203: 'InitNotUnlocked',
  1204: 'StatusNotAllowed',
  1205: 'InvalidHf',
  1206: 'InvalidPoolStatus',
  1207: 'InvalidUtilRate',
  1208: 'MaxPositionsExceeded',
  1209: 'InternalReserveNotFound',
  1210: 'InvalidPrice',
  1211: 'InvalidLiquidation',
  1212: 'AuctionInProgress',
  1213: 'InvalidLiqTooLarge',
  1214: 'InvalidLiqTooSmall',
  1215: 'InterestTooSmall',
  1216: 'InvalidBTokenMintAmount',
  1217: 'InvalidBTokenBurnAmount',
  1218: 'InvalidDTokenMintAmount',
  1219: 'InvalidDTokenBurnAmount',
  1220: 'ExceededSupplyCap',
  1221: 'InvalidBid',
  1222: 'InvalidLot',
  1223: 'ReserveDisabled',
  1224: 'MinCollateralNotMet',
});

/** The codes by name, for contracts that raise them (e.g. `BLEND_POOL_ERROR.InvalidHf` = 1205). */
export const BLEND_POOL_ERROR = {
  InternalError: 1,
  NegativeAmountError: 8,
  BalanceError: 10,
  BadRequest: 1200,
  InvalidPoolConfigArgs: 1201,
  InvalidReserveMetadata: 1202,
  StatusNotAllowed: 1204,
  InvalidHf: 1205,
  InvalidPoolStatus: 1206,
  InvalidUtilRate: 1207,
  MaxPositionsExceeded: 1208,
  InternalReserveNotFound: 1209,
  InvalidPrice: 1210,
  InvalidLiquidation: 1211,
  AuctionInProgress: 1212,
  InvalidLiqTooLarge: 1213,
  InvalidLiqTooSmall: 1214,
  InvalidBTokenMintAmount: 1216,
  InvalidBTokenBurnAmount: 1217,
  InvalidDTokenMintAmount: 1218,
  InvalidDTokenBurnAmount: 1219,
  ExceededSupplyCap: 1220,
  InvalidBid: 1221,
  InvalidLot: 1222,
  ReserveDisabled: 1223,
  MinCollateralNotMet: 1224,
} as const;

export function blendPoolErrorName(code: number): string | undefined {
  return BLEND_POOL_ERRORS[code];
}

/**
 * Names for an invocation of a pool: the pool's own codes (1200+) and, below them, the token contract's, which the
 * pool's common codes mirror and which its token transfers raise (AllowanceError 9, BalanceError 10).
 */
export const BLEND_POOL_CALL_ERRORS: ContractErrorNames = Object.freeze({
  ...TOKEN_CONTRACT_ERRORS,
  ...Object.fromEntries(Object.entries(BLEND_POOL_ERRORS).filter(([code]) => Number(code) >= 1200)),
});
