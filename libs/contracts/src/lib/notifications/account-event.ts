import 'reflect-metadata';
import {
  IsIn,
  IsISO8601,
  IsNumber,
  IsString,
  Matches,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { IsContractAddress, IsLedgerAccountAddress } from '../validation/ledger-validators';
import type { Channel } from './channel';

/** What a risk agent tells its wallet's owner (DECISIONS.md, Agent: owner's events). */
export const ACCOUNT_EVENT_TYPES = [
  'close_sent',
  'close_confirmed',
  'close_failed',
  'refused',
  'fee_balance_low',
  'subscription_lapsed',
  'subscription_renewed',
  'standby_took_over',
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** Where a refused transaction or payment came from: a build of the service, the agent's own, a 402 offer. */
export const REFUSAL_SOURCES = ['service', 'ledger', 'payment'] as const;
export type RefusalSource = (typeof REFUSAL_SOURCES)[number];

/** Absent is fine; present it must be valid (`null` included where the field allows it). */
function MayBeOmitted(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** Absent or `null` is fine. */
function MayBeNull(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null);
}

const finite = { allowNaN: false, allowInfinity: false } as const;

/**
 * `POST /api/v1/rms/events`: one event of the caller's agent for its wallet's owner. `eventId` is the caller's own
 * and makes a retry harmless (the same id is taken once). Text fields are plain text of printable characters: they
 * end up in a Telegram message, an email and a Discord or Slack post.
 */
export class AccountEventRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9._:-]+$/, { message: 'eventId must be 1 to 128 letters, digits, ".", "_", ":" or "-"' })
  eventId!: string;

  @IsIn(ACCOUNT_EVENT_TYPES, { message: `type must be one of ${ACCOUNT_EVENT_TYPES.join(', ')}` })
  type!: AccountEventType;

  @IsLedgerAccountAddress()
  walletAddress!: string;

  @IsISO8601({ strict: true }, { message: 'occurredAt must be an ISO 8601 timestamp' })
  occurredAt!: string;

  @MayBeOmitted()
  @IsContractAddress()
  poolAddress?: string;

  @MayBeNull()
  @IsNumber(finite, { message: 'healthFactorBefore must be a finite number or null' })
  @Min(0)
  healthFactorBefore?: number | null;

  @MayBeNull()
  @IsNumber(finite, { message: 'healthFactorAfter must be a finite number or null' })
  @Min(0)
  healthFactorAfter?: number | null;

  @MayBeOmitted()
  @Matches(/^[0-9a-f]{64}$/, { message: 'txHash must be a transaction hash (64 lower-case hex characters)' })
  txHash?: string;

  @MayBeOmitted()
  @IsIn(REFUSAL_SOURCES, { message: `source must be one of ${REFUSAL_SOURCES.join(', ')}` })
  source?: RefusalSource;

  /** A reason code (`wrong_pay_to`, `fee_above_cap`). */
  @MayBeOmitted()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'reason must be a lower-case code of letters, digits and _' })
  reason?: string;

  /** One sentence of plain text. */
  @MayBeOmitted()
  @IsString()
  @MaxLength(300)
  @Matches(/^[^\p{Cc}\p{Cf}\p{Co}\p{Cn}]*$/u, { message: 'detail must be printable text' })
  detail?: string;

  /** XLM, decimal (the fee balance). */
  @MayBeOmitted()
  @Matches(/^\d{1,12}(\.\d{1,7})?$/, { message: 'nativeBalance must be a decimal amount of XLM' })
  nativeBalance?: string;

  /** When the subscription ends. */
  @MayBeOmitted()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 timestamp' })
  expiresAt?: string;
}

/** The answer of `POST /api/v1/rms/events` (202). */
export interface AccountEventAnswer {
  success: true;
  eventId: string;
  /** Channels of the caller's configurations of the wallet the event is queued to. */
  queued: Channel[];
  /** Channels it is held back from (the event type's cooldown). */
  suppressed: Channel[];
  /** The same `eventId` was taken before: nothing queued again. */
  duplicate?: true;
}
