import { IsContractAddress } from '@rp/contracts';
import { IsHttpUrl, IsPortNumber, Secret, StatefulServiceConfig } from '@rp/platform';
import { IsEmail, IsOptional, IsString, MinLength } from 'class-validator';

const keyMessage = '$property must be at least 16 characters';

/** Risk evaluation (RMS) and the notification service (NS): configs, cooldowns, channel workers, DLQ. */
export class NotificationsConfig extends StatefulServiceConfig {
  override PORT = 3003;

  @IsOptional()
  @IsHttpUrl()
  CONTRACT_RPC_URL?: string;

  /** Lending pools the monitoring loop watches. */
  @IsOptional()
  @IsContractAddress({ each: true, message: '$property must be a comma-separated list of contract C-addresses' })
  RMS_POOLS: string[] = [];

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
}
