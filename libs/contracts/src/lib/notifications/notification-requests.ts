import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsISO8601,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type { RiskAlert } from '../risk/risk-alert';
import { RECOMMENDED_ACTIONS, type RecommendedAction } from '../risk/risk-level';
import { IsContractAddress, IsLedgerAccountAddress, IsRiskLevel } from '../validation/ledger-validators';
import { CHANNELS, type Channel } from './channel';

/** Telegram chat ids: a user id, a negative group id (`-100…` for supergroups) or a public `@channelname`. */
export const CHAT_ID_SHAPE = /^(?:-?[1-9]\d{0,15}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;
/** Telegram bot tokens: `<bot id>:<35 characters>` (longer accepted). */
export const BOT_TOKEN_SHAPE = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
const CHANNEL_RULE = `must be one of ${CHANNELS.join(', ')}`;

/** Absent is fine; present it must be valid, `null` included. */
function MayBeOmitted(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** A chat id given as a string or a JSON integer. */
function IsChatId(): PropertyDecorator {
  return ValidateBy({
    name: 'isChatId',
    validator: {
      validate: (value) =>
        (typeof value === 'string' && CHAT_ID_SHAPE.test(value)) ||
        (typeof value === 'number' && Number.isSafeInteger(value) && value !== 0),
      defaultMessage: () =>
        'messengerChatId must be a user id, a negative group id or an @channel name (5-32 letters, digits, _)',
    },
  });
}

class WalletField {
  @IsLedgerAccountAddress()
  walletAddress!: string;

  /** Either vocabulary; default `high`. */
  @MayBeOmitted()
  @IsRiskLevel()
  minRiskLevel?: string;
}

/** `POST /api/v1/rms/notifications/messenger`. */
export class RegisterMessengerRequest extends WalletField {
  /** A string; a JSON integer is accepted too (and answered as a string). */
  @IsChatId()
  messengerChatId!: string;

  @MayBeOmitted()
  @IsString({ message: 'messengerBotToken must be a bot token like 123456:ABC-DEF… (bot id, colon, secret)' })
  @Matches(BOT_TOKEN_SHAPE, {
    message: 'messengerBotToken must be a bot token like 123456:ABC-DEF… (bot id, colon, secret)',
  })
  messengerBotToken?: string;

  /** The wallet's channels to keep enabled (messenger, being registered, always is). */
  @MayBeOmitted()
  @IsArray({ message: `enabledChannels must be an array of channels (${CHANNELS.join(', ')})` })
  @ArrayMaxSize(3)
  @IsIn(CHANNELS, { each: true, message: `enabledChannels ${CHANNEL_RULE}` })
  enabledChannels?: Channel[];
}

/** `POST /api/v1/rms/notifications/channelhook`. */
export class RegisterChannelhookRequest extends WalletField {
  @IsString({ message: 'channelWebhook must be a webhook URL' })
  @MaxLength(2048)
  channelWebhook!: string;
}

/** `POST /api/v1/rms/notifications/email`. */
export class RegisterEmailRequest extends WalletField {
  @IsString({ message: 'email must be an email address' })
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;
}

/** `GET /api/v1/rms/notifications?walletAddress=`. */
export class WalletQuery {
  @IsLedgerAccountAddress()
  walletAddress!: string;
}

/** `DELETE /api/v1/rms/notifications?walletAddress=&channel=` and `POST …/test?walletAddress=&channel=`. */
export class WalletChannelQuery extends WalletQuery {
  @IsIn(CHANNELS, { message: `channel ${CHANNEL_RULE}` })
  channel!: Channel;
}

/** The alert (`RiskAlert`) as an external system sends it: its level in either vocabulary. */
export class AlertPayload implements Omit<RiskAlert, 'riskLevel'> {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'alertId must be printable ASCII without spaces' })
  alertId!: string;

  @IsLedgerAccountAddress()
  address!: string;

  @IsContractAddress()
  poolAddress!: string;

  @IsRiskLevel()
  riskLevel!: string;

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'healthFactor must be a finite number' })
  @Min(0)
  healthFactor!: number;

  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  triggers!: string[];

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'collateralValueUsd must be a finite number' })
  @Min(0)
  collateralValueUsd!: number;

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'liabilityValueUsd must be a finite number' })
  @Min(0)
  liabilityValueUsd!: number;

  @IsIn(RECOMMENDED_ACTIONS, { message: `recommendedAction must be one of ${RECOMMENDED_ACTIONS.join(', ')}` })
  recommendedAction!: RecommendedAction;

  @IsISO8601({ strict: true }, { message: 'evaluatedAt must be an ISO 8601 timestamp' })
  evaluatedAt!: string;
}

export const ROUTING_PRIORITIES = ['normal', 'high', 'urgent'] as const;

export class AlertRouting {
  @MayBeOmitted()
  @IsArray({ message: `routing.channels must be an array of channels` })
  @ArrayMaxSize(3)
  @IsIn(CHANNELS, { each: true, message: `channels ${CHANNEL_RULE}` })
  channels?: Channel[];

  @MayBeOmitted()
  @IsIn(ROUTING_PRIORITIES, { message: `priority must be one of ${ROUTING_PRIORITIES.join(', ')}` })
  priority?: (typeof ROUTING_PRIORITIES)[number];
}

/** `POST /api/v1/rms/notifications/webhook`. */
export class AlertWebhookRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  source!: string;

  @IsObject({ message: 'alert must be an alert object' })
  @ValidateNested()
  @Type(() => AlertPayload)
  alert!: AlertPayload;

  @MayBeOmitted()
  @IsObject({ message: 'routing must be an object' })
  @ValidateNested()
  @Type(() => AlertRouting)
  routing?: AlertRouting;

  @MayBeOmitted()
  @IsISO8601({ strict: true }, { message: 'timestamp must be an ISO 8601 timestamp' })
  timestamp?: string;
}
