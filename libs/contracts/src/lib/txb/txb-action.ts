export const TXB_ACTIONS = ['REPAY', 'LIQUIDATE', 'UNWIND', 'RESCUE'] as const;
export type TxbAction = (typeof TXB_ACTIONS)[number];

/** Actions whose `tokenId` is optional and `amount` refused: they size themselves from the position. */
export const SELF_SIZED_ACTIONS: readonly TxbAction[] = ['UNWIND', 'RESCUE'];

/** Blend requests inside one pool invocation; a Soroban transaction holds exactly one operation. */
export const MAX_OPERATIONS_PER_TRANSACTION = 10;

export const SLIPPAGE_BPS = { min: 0, max: 10_000, default: 50 } as const;

/**
 * How high a built transaction bids for inclusion (`feeLevel`): `normal` follows the recent clearing price, `high`
 * outbids it (the agent's choice for a close). DECISIONS.md, Transaction builder.
 */
export const FEE_LEVELS = ['normal', 'high'] as const;
export type FeeLevel = (typeof FEE_LEVELS)[number];
