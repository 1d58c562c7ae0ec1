import { Injectable, Logger } from '@nestjs/common';
import {
  type Channel,
  ErrorCode,
  type RegisterChannelhookRequest,
  type RegisterEmailRequest,
  type RegisterMessengerRequest,
  type RiskLevel,
  parseRiskLevel,
} from '@rp/contracts';
import { ApiError } from '@rp/platform';
import { WebhookUrlPolicy } from '../delivery/channels/webhook-url';
import { destinationKeyOf } from '../delivery/destination';
import { type ConfigurationView, configurationView } from './configuration-view';
import { type ChannelConfigFields, NotificationConfigRepository } from './notification-config.repository';
import { SecretBox } from './secret-box';

export const DEFAULT_MIN_RISK_LEVEL: RiskLevel = 'high';

/** Registration, retrieval and deletion of a wallet's channels for one account. */
@Injectable()
export class ConfigsService {
  private readonly logger = new Logger(ConfigsService.name);

  constructor(
    private readonly repository: NotificationConfigRepository,
    private readonly box: SecretBox,
    private readonly webhooks: WebhookUrlPolicy,
  ) {}

  async registerMessenger(account: string, request: RegisterMessengerRequest): Promise<ConfigurationView> {
    const fields: ChannelConfigFields = {
      ...this.base(request.minRiskLevel),
      chatId: String(request.messengerChatId),
      botToken: request.messengerBotToken ? this.box.seal(request.messengerBotToken) : undefined,
      destinationKey: request.messengerBotToken
        ? destinationKeyOf({
            channel: 'messenger',
            botToken: request.messengerBotToken,
            chatId: String(request.messengerChatId),
          })
        : undefined,
    };
    await this.repository.upsert(account, request.walletAddress, 'messenger', fields);
    if (request.enabledChannels) {
      const keep = new Set<Channel>([...request.enabledChannels, 'messenger']);
      for (const record of await this.repository.forAccount(account, request.walletAddress)) {
        if (record.enabled !== keep.has(record.channel))
          await this.repository.update(record.id, { enabled: keep.has(record.channel) });
      }
    }
    return this.registered(account, request.walletAddress, 'messenger');
  }

  async registerChannelhook(account: string, request: RegisterChannelhookRequest): Promise<ConfigurationView> {
    const check = await this.webhooks.check(request.channelWebhook);
    if (!check.ok) {
      throw new ApiError(400, ErrorCode.VALIDATION_FAILED, `channelWebhook ${check.reason}`, {
        details: [{ field: 'channelWebhook', message: check.reason }],
      });
    }
    const fields: ChannelConfigFields = {
      ...this.base(request.minRiskLevel),
      webhookUrl: this.box.seal(request.channelWebhook),
      destinationKey: destinationKeyOf({ channel: 'channelhook', url: request.channelWebhook }),
    };
    await this.repository.upsert(account, request.walletAddress, 'channelhook', fields);
    return this.registered(account, request.walletAddress, 'channelhook');
  }

  async registerEmail(account: string, request: RegisterEmailRequest): Promise<ConfigurationView> {
    const fields: ChannelConfigFields = { ...this.base(request.minRiskLevel), email: request.email.trim() };
    await this.repository.upsert(account, request.walletAddress, 'email', fields);
    return this.registered(account, request.walletAddress, 'email');
  }

  async view(account: string, walletAddress: string): Promise<ConfigurationView> {
    const records = await this.repository.forAccount(account, walletAddress);
    if (records.length === 0) throw notFound(walletAddress);
    return configurationView(walletAddress, records, this.box);
  }

  async remove(
    account: string,
    walletAddress: string,
    channel: Channel,
  ): Promise<{ success: true; walletAddress: string; channel: Channel; deleted: true; timestamp: string }> {
    if ((await this.repository.remove(account, walletAddress, channel)) === 0) throw notFound(walletAddress, channel);
    return { success: true, walletAddress, channel, deleted: true, timestamp: new Date().toISOString() };
  }

  private base(minRiskLevel: string | undefined): ChannelConfigFields {
    return {
      enabled: true,
      minRiskLevel: parseRiskLevel(minRiskLevel) ?? DEFAULT_MIN_RISK_LEVEL,
      disabledReason: undefined,
    };
  }

  private async registered(account: string, walletAddress: string, channel: Channel): Promise<ConfigurationView> {
    this.logger.log(`${channel} registered for ${walletAddress}`);
    return configurationView(walletAddress, await this.repository.forAccount(account, walletAddress), this.box);
  }
}

export function notFound(walletAddress: string, channel?: Channel): ApiError {
  const what = channel ? `No ${channel} configuration` : 'No notification configuration';
  return new ApiError(404, ErrorCode.NOT_FOUND, `${what} for ${walletAddress}`);
}
