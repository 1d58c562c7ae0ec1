import {
  CHAT_ID_SHAPE,
  IsContractAddress,
  IsLedgerAccountAddress,
  RISK_LEVELS,
  type RiskLevel,
  SLIPPAGE_BPS,
  isContractAddress,
  parseRiskLevel,
} from '@rp/contracts';
import { DEFAULT_MAX_PRICE_USD, baseUnitsToUsd, usdToBaseUnits } from '@rp/ledger';
import {
  AppConfig,
  IsDuration,
  IsHttpUrl,
  IsHttpUrlList,
  Required,
  Secret,
  withDatabase,
  withRedis,
} from '@rp/platform-core';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
} from 'class-validator';

const slippageMessage = `$property must be an integer number of basis points between ${SLIPPAGE_BPS.min} and ${SLIPPAGE_BPS.max}`;
const levelMessage = `$property must be one of ${RISK_LEVELS.join(', ')} (or healthy, warn, alert, emergency)`;
/** A USD amount above 0 with at most 7 decimals (the payment asset's precision). */
const USD_AMOUNT = /^(?!0+(\.0+)?$)(0|[1-9]\d{0,8})(\.\d{1,7})?$/;
const usdMessage = { message: '$property must be a USD amount above 0 with at most 7 decimals' };
export const CLOSE_STRATEGIES = ['unwind', 'deleverage'] as const;

/** 127.0.0.0/8, ::1 or localhost: the only hosts the agent may reach over plain http:// (nothing on the path). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}

/** https://, or http:// to a loopback host: what the agent signs depends on what these answer (issue 17 §1). */
export function isSecureOrLoopbackUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

function IsSecureOrLoopbackUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isSecureOrLoopbackUrl',
    validator: {
      validate: isSecureOrLoopbackUrl,
      defaultMessage: () =>
        '$property must be an https:// URL (plain http:// only to a loopback host: 127.0.0.0/8, ::1, localhost)',
    },
  });
}
/** Every entry of a comma-separated URL list (CONTRACT_RPC_URL) is https://, or http:// to a loopback host. */
function IsSecureOrLoopbackUrlList(): PropertyDecorator {
  return ValidateBy({
    name: 'isSecureOrLoopbackUrlList',
    validator: {
      validate: (value) =>
        typeof value === 'string' &&
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '')
          .every(isSecureOrLoopbackUrl),
      defaultMessage: () =>
        '$property must be an https:// URL (plain http:// only to a loopback host: 127.0.0.0/8, ::1, localhost), ' +
        'every entry of the list',
    },
  });
}
export type CloseStrategy = (typeof CLOSE_STRATEGIES)[number];

/**
 * The risk agent: one process per managed wallet. Redis is optional here (without it the cooldown and lock
 * live in the database), so unlike the services it has no Redis host by default. It takes no calls from the
 * gateway, so it has no `INTERNAL_TOKEN`; its `/status` may ask for `STATUS_TOKEN` instead.
 */
export class AgentConfig extends withDatabase(withRedis(AppConfig)) {
  override PORT = 8080;

  /** Loopback: `/status` shows positions and belongs on a trusted network. In a container the default is 0.0.0.0. */
  override HOST = '127.0.0.1';

  override REDIS_HOST?: string = undefined;

  /** BIP-39 mnemonic of the managed wallet (SEP-5 path m/44'/148'/0'). The most sensitive secret there is. */
  @Required()
  @Matches(/^[a-z]+( [a-z]+){11}( [a-z]+){0,12}$/, {
    message: '$property must be 12 to 24 lower-case words separated by single spaces',
  })
  @Secret()
  LEDGER_MNEMONIC!: string;

  /**
   * The Soroban RPC the agent reads and sends through, or a comma-separated list tried in order (failover: the next
   * one on no answer, 5xx, 429 or a latest ledger that stands still; the first again after its rest). Each entry
   * https://, or http:// to a loopback host only. Shown as origins only (paths may hold API keys).
   */
  @Required()
  @IsHttpUrlList()
  @IsSecureOrLoopbackUrlList()
  CONTRACT_RPC_URL!: string;

  @IsDuration(500)
  POLL_INTERVAL_MS = 5000;

  /** Slippage tolerance of unwind swaps, in basis points. */
  @IsInt({ message: slippageMessage })
  @Min(SLIPPAGE_BPS.min, { message: slippageMessage })
  @Max(SLIPPAGE_BPS.max, { message: slippageMessage })
  SLIPPAGE = 100;

  /** Seconds during which a second close of the same position is refused. */
  @IsDuration(1)
  CLOSE_COOLDOWN_TTL = 300;

  /**
   * The service's gateway: https://, or http:// to a loopback host only. There is no hosted endpoint yet: the
   * default is the local gateway of `npm start`.
   */
  @IsHttpUrl()
  @IsSecureOrLoopbackUrl()
  SERVICE_BASE_URL = 'http://127.0.0.1:3000';

  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  SERVICE_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  SERVICE_PROJECT_NAME?: string;

  /** Play the service's answers from an in-process mock (a position drifting into danger). */
  @IsBoolean({ message: '$property must be true or false' })
  SERVICE_MOCK = false;

  /** The risk level at which the agent closes (either vocabulary); lower levels are watched only. */
  @ValidateBy({
    name: 'isRiskLevel',
    validator: { validate: (value) => parseRiskLevel(value) !== undefined, defaultMessage: () => levelMessage },
  })
  ACT_AT_RISK_LEVEL = 'critical';

  /** `unwind` closes the whole position; `deleverage` sells just enough collateral to reach TARGET_HEALTH_FACTOR. */
  @IsIn(CLOSE_STRATEGIES, { message: `$property must be one of ${CLOSE_STRATEGIES.join(', ')}` })
  CLOSE_STRATEGY: CloseStrategy = 'unwind';

  /** Health factor a `deleverage` close brings the position back to. */
  @IsNumber({}, { message: '$property must be a number between 1.01 and 100' })
  @Min(1.01, { message: '$property must be a number between 1.01 and 100' })
  @Max(100, { message: '$property must be a number between 1.01 and 100' })
  TARGET_HEALTH_FACTOR = 1.5;

  /** When set, `/status` and `/metrics` answer only with `Authorization: Bearer <STATUS_TOKEN>`. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: '$property must be at least 16 characters' })
  @Secret()
  STATUS_TOKEN?: string;

  /** Below this native balance (in XLM) the fee balance is low: a warning in `/status` and the logs. */
  @IsNumber({}, { message: '$property must be a number of XLM, 0 or more' })
  @Min(0, { message: '$property must be a number of XLM, 0 or more' })
  LOW_FEE_BALANCE_XLM = 5;

  /** Pools watched in degraded mode besides those the service has named (comma-separated C-addresses). */
  @ValidateBy({
    name: 'isContractList',
    validator: {
      validate: (value) => Array.isArray(value) && value.every((item) => isContractAddress(item)),
      defaultMessage: () => '$property must be a comma-separated list of contract (C...) addresses',
    },
  })
  WATCHED_POOLS: string[] = [];

  /** Flash-loan receiver the agent's own builds use in degraded mode (the service's TXB_UNWIND_RECEIVER). */
  @IsOptional()
  @ValidateBy({
    name: 'isContract',
    validator: {
      validate: (value) => isContractAddress(value),
      defaultMessage: () => '$property must be a contract (C...) address',
    },
  })
  UNWIND_RECEIVER?: string;

  // The signing rule (issue 17 §1, ADR 016).

  /**
   * The most a close may pay in fees, stroops (inclusion plus resources). 10 XLM: about a hundred times the resource
   * fee of a flash-loan unwind, room for surge pricing when the network is congested; a dearer close is not signed.
   */
  @IsInt({ message: '$property must be a whole number of stroops between 100 and 10000000000' })
  @Min(100, { message: '$property must be a whole number of stroops between 100 and 10000000000' })
  @Max(10_000_000_000, { message: '$property must be a whole number of stroops between 100 and 10000000000' })
  MAX_CLOSE_FEE_STROOPS = 100_000_000;

  /** The Blend pool factory whose `is_pool` confirms a pool; the network's official v2 factory when unset. */
  @IsOptional()
  @IsContractAddress()
  BLEND_POOL_FACTORY?: string;

  /** Milliseconds the per-wallet lock lasts without renewal: a standby takes over within this after a crash. */
  @IsDuration(1000)
  LOCK_LEASE_MS = 15_000;

  /** How often the subscription is checked (and renewed within 3 days of expiry), in milliseconds. */
  @IsDuration(1000)
  SUBSCRIPTION_CHECK_INTERVAL_MS = 86_400_000;

  actLevel(): RiskLevel {
    return parseRiskLevel(this.ACT_AT_RISK_LEVEL) ?? 'critical';
  }

  // Purchase limits and the owner's events (issue 17, ADR 019).

  /** The most one API key may cost, decimal USD; a dearer 402 is refused before anything is signed. */
  @Matches(USD_AMOUNT, usdMessage)
  SERVICE_MAX_PRICE = DEFAULT_MAX_PRICE_USD;

  /** The one asset the agent pays in (C-address); the network's USDC when unset. */
  @IsOptional()
  @IsContractAddress()
  SERVICE_PAYMENT_ASSET?: string;

  /** When set, the only receiver (G-address) the agent pays for its key. */
  @IsOptional()
  @IsLedgerAccountAddress()
  SERVICE_PAY_TO?: string;

  /** The most the agent signs for keys in any 30 days, decimal USD; three times SERVICE_MAX_PRICE when unset. */
  @IsOptional()
  @Matches(USD_AMOUNT, usdMessage)
  SERVICE_MAX_SPEND_30D?: string;

  /** Telegram chat (user id, negative group id or @channel) the owner is told in, by the service's bot. */
  @IsOptional()
  @Matches(CHAT_ID_SHAPE, { message: '$property must be a Telegram user id, a negative group id or an @channel name' })
  NOTIFY_TELEGRAM_CHAT_ID?: string;

  /** Email address the owner is told at. */
  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  NOTIFY_EMAIL?: string;

  /** Discord or Slack incoming webhook the owner is told on (a secret: it carries the hook's token). */
  @IsOptional()
  @IsHttpUrl()
  @Secret()
  NOTIFY_WEBHOOK_URL?: string;

  /** `SERVICE_MAX_SPEND_30D`, or three times `SERVICE_MAX_PRICE` (exact decimal arithmetic). */
  maxSpend30dUsd(): string {
    return this.SERVICE_MAX_SPEND_30D ?? baseUnitsToUsd(3n * usdToBaseUnits(this.SERVICE_MAX_PRICE));
  }
}
