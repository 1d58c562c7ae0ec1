export const TXB_ACTIONS = ['REPAY', 'LIQUIDATE', 'UNWIND'] as const;
export type TxbAction = (typeof TXB_ACTIONS)[number];

/** Blend requests inside one pool invocation; a Soroban transaction holds exactly one operation. */
export const MAX_OPERATIONS_PER_TRANSACTION = 10;

export const SLIPPAGE_BPS = { min: 0, max: 10_000, default: 50 } as const;
