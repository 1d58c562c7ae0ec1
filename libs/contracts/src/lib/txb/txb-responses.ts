import type { RiskLevel } from '../risk/risk-level';
import type { ProposalStatus } from './proposal-status';
import type { TxbAction } from './txb-action';

/** Codes of `warnings[]` in a build answer (DECISIONS.md, Transaction builder). */
export const TxbWarningCode = {
  /** The wallet holds less of the token than the transaction may take (the max cost). */
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  /** The pool is on ice (borrowing and flash loans refused) or frozen (supplying refused too). */
  POOL_ON_ICE: 'POOL_ON_ICE',
  POOL_FROZEN: 'POOL_FROZEN',
  /** An oracle price the pool will use is older than five minutes. */
  STALE_PRICE: 'STALE_PRICE',
  /** The amount asked for was more than the position holds; the transaction uses the position's amount. */
  AMOUNT_CAPPED: 'AMOUNT_CAPPED',
  /** The health factor after the transaction is lower than before, or not in the low-risk band. */
  HEALTH_FACTOR_AFTER: 'HEALTH_FACTOR_AFTER',
  /**
   * UNWIND through a flash loan settles with `transfer_from`: this transaction is the wallet's approval of the
   * pool, to be submitted before the unwind itself is built (docs/adr/010-unwind-construction.md).
   */
  APPROVAL_REQUIRED: 'APPROVAL_REQUIRED',
  /** Recent Soroban inclusion fees (`getFeeStats`) are above the minimum: surge pricing, the fee is raised. */
  NETWORK_CONGESTED: 'NETWORK_CONGESTED',
} as const;
export type TxbWarningCode = (typeof TxbWarningCode)[keyof typeof TxbWarningCode];

export interface TxbWarning {
  code: TxbWarningCode;
  message: string;
}

/** Spec, Built transaction. */
export interface BuiltTransaction {
  /** Unsigned, simulated and assembled `TransactionEnvelope`, base64. */
  transactionXdr: string;
  sourceAddress: string;
  /** Requests inside the one pool invocation (the flash loan counts as one). */
  operations: number;
  /**
   * The inclusion fee the transaction bids, stroops per operation (integer string), priced from `getFeeStats` at
   * the build's `feeLevel`; the simulated resource fee is on top. Absent on proposals built before fees were priced.
   */
  fee?: string;
  createdAt: string;
}

export interface ProposalMetadata {
  poolAddress: string;
  tokenId: string;
  /** Base units: the amount repaid, withdrawn or (approval step) approved. */
  amount: string;
  action: TxbAction;
  /** UNWIND only: how it is carried out (`approve` is the step before a flash-loan unwind). */
  route?: UnwindRoute;
  /** RESCUE only: the health factor aimed at and what the wallet pays in before request 9 deletes the auction. */
  rescue?: RescueMetadata;
}

export interface RescueMetadata {
  targetHealthFactor: number;
  /** In order, before the DeleteLiquidationAuction; empty when the position is at the target already. */
  requests: { requestType: 'Repay' | 'SupplyCollateral'; tokenId: string; amount: string }[];
}

export type UnwindRoute = 'submit' | 'submit-with-allowance' | 'flash-loan' | 'approve';

/** The position as the simulation leaves it. Values are USD in the oracle's decimals, as decimal strings. */
export interface BuildPreview {
  /** 7 decimals; null when there is no debt. */
  healthFactorBefore: number | null;
  healthFactorAfter: number | null;
  riskLevelAfter: RiskLevel;
  collateralValueUsdAfter: string;
  liabilityValueUsdAfter: string;
}

export interface BuildResponse {
  success: true;
  transaction: BuiltTransaction;
  proposal: { id: string; status: ProposalStatus; expiresAt: string; metadata: ProposalMetadata };
  warnings: TxbWarning[];
  preview: BuildPreview;
}

export interface ProposalView {
  id: string;
  status: ProposalStatus;
  createdAt: string;
  expiresAt: string;
  transaction: BuiltTransaction;
  metadata: ProposalMetadata;
  /** Once submitted. */
  txHash?: string;
  /** Once confirmed or failed on the ledger. */
  ledger?: number;
  /** Why a failed proposal failed: `expired`, or the ledger's result code (`txBadSeq`, `txFailed`, ...). */
  failure?: { reason: string; resultCode?: string; contractError?: { code: number; name?: string } };
}

export interface ProposalsResponse {
  success: true;
  proposals: ProposalView[];
  total: number;
  timestamp: string;
}

export interface SubmitResponse {
  success: true;
  txHash: string;
}

export interface TxbStatusResponse {
  success: true;
  service: 'txb';
  status: 'ok' | 'degraded';
  proposalsInMemory: number;
  timestamp: string;
}
