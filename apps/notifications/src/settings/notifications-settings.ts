import { IsContractAddress } from '@rp/contracts';
import {
  IsHttpUrl,
  IsHttpUrlList,
  IsPortNumber,
  RequiredInProduction,
  Secret,
  StatefulServiceConfig,
} from '@rp/platform';
import { IsEmail, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy } from 'class-validator';

const ENCRYPTION_KEY = /^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/;

export const NOTIFICATIONS_ROLES = ['api', 'monitor', 'worker', 'all'] as const;
export type NotificationsRole = (typeof NOTIFICATIONS_ROLES)[number];

const keyMessage = '$property must be at least 16 characters';

/** Risk evaluation (RMS) and the notification service (NS): configs, cooldowns, channel workers, DLQ. */
export class NotificationsSettings extends StatefulServiceConfig {
  override PORT = 3003;

  /** The Soroban RPC, or a comma-separated list tried in order (failover); shown as origins only. */
  @IsOptional()
  @IsHttpUrlList()
  CONTRACT_RPC_URL?: string;

  /** Lending pools the monitoring loop watches. */
  @IsOptional()
  @IsContractAddress({ each: true, message: '$property must be a comma-separated list of contract C-addresses' })
  RMS_POOLS: string[] = [];

  /** Assets worth $1 besides Circle's USDC (on both networks): their depeg raises `stablecoin_depeg`. */
  @IsOptional()
  @IsContractAddress({ each: true, message: '$property must be a comma-separated list of contract C-addresses' })
  RMS_STABLECOINS: string[] = [];

  /** Admin key for the trigger and DLQ routes (`x-admin-key`). */
  @IsOptional()
  @MinLength(16, { message: keyMessage })
  @Secret()
  RMS_ADMIN_API_KEY?: string;

  /** Shared secret of the inbound alert webhook (`X-Webhook-Secret`). */
  @IsOptional()
  @MinLength(16, { message: keyMessage })
  @Secret()
  RMS_WEBHOOK_SECRET?: string;

  /** Default bot token for messenger deliveries. */
  @IsOptional()
  @IsString()
  @Secret()
  MESSENGER_BOT_TOKEN?: string;

  /** Base URL of the messenger Bot API (the sandbox stand-in under the launcher). */
  @IsHttpUrl()
  MESSENGER_API_URL = 'https://api.telegram.org';

  @IsOptional()
  @IsString()
  SMTP_HOST?: string;

  @IsPortNumber()
  SMTP_PORT = 587;

  @IsOptional()
  @IsString()
  SMTP_USER?: string;

  @IsOptional()
  @IsString()
  @Secret()
  SMTP_PASSWORD?: string;

  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  EMAIL_FROM?: string;

  /**
   * The subscription service (its internal `/internal/accounts/owners`): asked once, at the API's start, which
   * accounts own configurations registered before accounts existed (ADR 015). Only when there are such records.
   */
  @IsHttpUrl()
  SUBSCRIPTION_URL = 'http://127.0.0.1:3001';

  /** Which parts run in this process: the HTTP API, the monitor, the delivery workers, or all of them. */
  @IsIn(NOTIFICATIONS_ROLES, { message: `$property must be one of ${NOTIFICATIONS_ROLES.join(', ')}` })
  NOTIFICATIONS_ROLE: NotificationsRole = 'all';

  /** AES-256-GCM key for bot tokens and webhook URLs at rest: 32 bytes as 64 hex or 44 base64 characters. */
  @RequiredInProduction()
  @ValidateBy({
    name: 'isEncryptionKey',
    validator: {
      validate: (value: unknown) => value === undefined || (typeof value === 'string' && ENCRYPTION_KEY.test(value)),
      defaultMessage: () => '$property must be 32 bytes in hex (64) or base64 (44)',
    },
  })
  @Secret()
  NOTIFICATIONS_ENCRYPTION_KEY?: string;

  /** Extra webhook hosts accepted as listed (`host:port`, comma-separated), loopback included: the sandbox receiver. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9.-]+:\d{1,5}$/, { each: true, message: '$property must be a comma-separated list of host:port' })
  NOTIFICATIONS_WEBHOOK_HOSTS: string[] = [];

  /** Prefix of every Redis key and BullMQ queue of the service (tests give each run its own). */
  @IsString()
  @Matches(/^[A-Za-z0-9_:-]{1,40}$/, { message: '$property must be 1-40 letters, digits, _ : -' })
  NOTIFICATIONS_KEY_PREFIX = 'ns';

  /** Deliveries one worker process runs at once. */
  @IsInt()
  @Min(1)
  @Max(1000)
  NOTIFICATIONS_WORKER_CONCURRENCY = 200;

  /**
   * The inbound webhook's requests are taken in together: a batch waits at most this long for company (ms; 0: only
   * the requests that arrived together) ...
   */
  @IsInt()
  @Min(0)
  @Max(100)
  NOTIFICATIONS_INTAKE_BATCH_WAIT_MS = 2;

  /** ... and goes at once when it holds this many alerts. */
  @IsInt()
  @Min(1)
  @Max(5000)
  NOTIFICATIONS_INTAKE_BATCH_MAX = 200;

  // ---- monitor (RMS) ----

  /** How often the monitor's scheduler asks the RPC for its latest ledger; a new ledger starts a round. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  RMS_LEDGER_POLL_MS = 500;

  /** Watched wallets per BullMQ batch job of a round (replicas share a round's jobs). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  RMS_MONITOR_BATCH_SIZE = 500;

  /** Batch jobs one worker process evaluates at once. */
  @IsInt()
  @Min(1)
  @Max(64)
  RMS_MONITOR_CONCURRENCY = 2;

  /** Cached positions are read again at least every this many rounds, even without a pool event naming them. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  RMS_POSITION_REFRESH_ROUNDS = 60;

  /** A round not finished after this long is given up (its leftover jobs skip) and the next one starts. */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  RMS_ROUND_TIMEOUT_MS = 30_000;

  keyPrefix(): string {
    return `${this.NOTIFICATIONS_KEY_PREFIX}:`;
  }

  bullPrefix(): string {
    return `${this.NOTIFICATIONS_KEY_PREFIX}:bull`;
  }

  runs(part: 'api' | 'monitor' | 'worker'): boolean {
    return this.NOTIFICATIONS_ROLE === 'all' || this.NOTIFICATIONS_ROLE === part;
  }
}
