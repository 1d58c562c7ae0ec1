import {
  IsBase64,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  NotEquals,
  ValidateBy,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { IsBaseUnitAmount, IsContractAddress, IsLedgerAccountAddress } from '../validation/ledger-validators';
import { FEE_LEVELS, type FeeLevel, SELF_SIZED_ACTIONS, SLIPPAGE_BPS, TXB_ACTIONS, type TxbAction } from './txb-action';

/** Largest health factor a partial unwind may aim at; above it, close the position instead. */
export const MAX_TARGET_HEALTH_FACTOR = 100;
/** Smallest target: the pool itself refuses anything under 1.00001, and a target that close helps nobody. */
export const MIN_TARGET_HEALTH_FACTOR = 1.01;

/**
 * An optional field: absent is fine, but present it must be valid, `null` included (class-validator's
 * `IsOptional` would let `null` through as if it were absent, and code downstream would meet a null).
 */
function MayBeOmitted(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** A field that only an UNWIND accepts (`targetHealthFactor`) or that an UNWIND does not accept (`amount`). */
function OnlyWhenAction(accepts: (action: unknown) => boolean, rule: string): PropertyDecorator {
  return ValidateBy({
    name: 'onlyWhenAction',
    validator: {
      validate: (_value: unknown, args?: ValidationArguments) =>
        accepts((args?.object as { action?: unknown } | undefined)?.action),
      defaultMessage: (args?: ValidationArguments) => `${args?.property ?? 'field'} ${rule}`,
    },
  });
}

/** `POST /api/v1/txb/build` (spec, Build request body, plus UNWIND's `targetHealthFactor`). */
export class BuildTransactionRequest {
  @IsIn(TXB_ACTIONS, { message: `action must be one of ${TXB_ACTIONS.join(', ')}` })
  action!: TxbAction;

  /** The wallet that owns the position, signs the transaction and is its source account. */
  @IsLedgerAccountAddress()
  walletAddress!: string;

  /** The Blend v2 pool. */
  @IsContractAddress()
  poolAddress!: string;

  /**
   * REPAY: the debt's token; LIQUIDATE: the collateral's token (both required). UNWIND: optional, the collateral to
   * sell through the flash-loan receiver (chosen from the position when omitted). RESCUE: optional, the only token
   * to repay or supply (any the wallet holds when omitted).
   */
  @ValidateIf(
    (request: BuildTransactionRequest) => !SELF_SIZED_ACTIONS.includes(request.action) || request.tokenId !== undefined,
  )
  @IsContractAddress()
  tokenId?: string;

  /** Base units; omitted: the whole debt (REPAY) or all the collateral (LIQUIDATE). Not with UNWIND or RESCUE. */
  @MayBeOmitted()
  @IsBaseUnitAmount()
  @NotEquals('0', { message: 'amount must be greater than zero' })
  @OnlyWhenAction(
    (action) => !SELF_SIZED_ACTIONS.includes(action as TxbAction),
    'is not accepted with UNWIND or RESCUE (they size themselves; use targetHealthFactor)',
  )
  amount?: string;

  /** Tolerance on amounts that move between build and inclusion (interest, swap price), in basis points. */
  @MayBeOmitted()
  @IsInt({ message: `slippageBps must be an integer from ${SLIPPAGE_BPS.min} to ${SLIPPAGE_BPS.max}` })
  @Min(SLIPPAGE_BPS.min, { message: `slippageBps must be an integer from ${SLIPPAGE_BPS.min} to ${SLIPPAGE_BPS.max}` })
  @Max(SLIPPAGE_BPS.max, { message: `slippageBps must be an integer from ${SLIPPAGE_BPS.min} to ${SLIPPAGE_BPS.max}` })
  slippageBps?: number;

  /**
   * UNWIND: withdraw and swap just enough collateral to bring the health factor up to this value. RESCUE: the health
   * factor the rescue brings the position to (default 1.10, the default critical bound; ADR 027).
   */
  @MayBeOmitted()
  @IsNumber(
    { allowNaN: false, allowInfinity: false, maxDecimalPlaces: 7 },
    { message: 'targetHealthFactor must be a number with at most 7 decimals' },
  )
  @Min(MIN_TARGET_HEALTH_FACTOR, {
    message: `targetHealthFactor must be between ${MIN_TARGET_HEALTH_FACTOR} and ${MAX_TARGET_HEALTH_FACTOR}`,
  })
  @Max(MAX_TARGET_HEALTH_FACTOR, {
    message: `targetHealthFactor must be between ${MIN_TARGET_HEALTH_FACTOR} and ${MAX_TARGET_HEALTH_FACTOR}`,
  })
  @OnlyWhenAction((action) => SELF_SIZED_ACTIONS.includes(action as TxbAction), 'is accepted with UNWIND or RESCUE only')
  targetHealthFactor?: number;

  /**
   * How high the transaction bids for inclusion: `normal` (the default) p90 of recent Soroban inclusion fees,
   * `high` p95 + 25% (what the agent bids for a close); never below the minimum, at most
   * `TXB_MAX_INCLUSION_FEE_STROOPS`.
   */
  @MayBeOmitted()
  @IsIn(FEE_LEVELS, { message: `feeLevel must be one of ${FEE_LEVELS.join(', ')}` })
  feeLevel?: FeeLevel;
}

/** `POST /api/v1/txb/submit`. */
export class SubmitTransactionRequest {
  /** The proposal's transaction, signed by the wallet: a base64 `TransactionEnvelope`. */
  @IsString()
  @IsNotEmpty({ message: 'transactionXdr must be a signed transaction envelope (base64 XDR)' })
  @MaxLength(100_000)
  @IsBase64({}, { message: 'transactionXdr must be a signed transaction envelope (base64 XDR)' })
  transactionXdr!: string;

  /** An RPC to submit through instead of the service's own; only URLs on `TXB_ALLOWED_RPC_URLS` are accepted. */
  @MayBeOmitted()
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'rpcUrl must be an http:// or https:// URL' },
  )
  rpcUrl?: string;
}

/** `GET /api/v1/txb/proposals?wallet=`. */
export class ProposalsQuery {
  @IsLedgerAccountAddress()
  wallet!: string;
}
