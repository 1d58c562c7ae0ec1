import { randomUUID } from 'node:crypto';
import { Controller, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type CallerIdentity, type RiskAlert, WalletChannelQuery } from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { accountOf } from '../channel-configs/configuration-view';
import { notFound } from '../channel-configs/configs.service';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { TEST_MESSAGE_SCHEMA } from '../openapi/notification-schemas';
import { AlertIntake } from './alert-intake.service';

@ApiTags('notifications')
@ApiKeyAuth()
@Controller('api/v1/rms/notifications/test')
export class TestMessageController {
  constructor(
    private readonly configs: NotificationConfigRepository,
    private readonly intake: AlertIntake,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'sendTestMessage',
    summary: 'Send a test message to one registered channel of the wallet',
  })
  @ApiResponse({ status: 202, description: 'Queued', schema: TEST_MESSAGE_SCHEMA })
  @ApiErrorResponse(404, 'That channel is not registered for this wallet by your account')
  async send(@Caller() caller: CallerIdentity, @Query() query: WalletChannelQuery) {
    const record = (await this.configs.forAccount(accountOf(caller), query.walletAddress)).find(
      (c) => c.channel === query.channel,
    );
    if (!record) throw notFound(query.walletAddress, query.channel);
    const alert: RiskAlert = {
      alertId: `test-${randomUUID()}`,
      address: query.walletAddress,
      poolAddress: 'test',
      riskLevel: 'low',
      healthFactor: 2,
      triggers: [],
      collateralValueUsd: 0,
      liabilityValueUsd: 0,
      recommendedAction: 'HOLD',
      evaluatedAt: new Date().toISOString(),
    };
    const jobId = await this.intake.queueTo(alert, record, 'test');
    return {
      success: true,
      alertId: alert.alertId,
      channel: query.channel,
      jobId,
      enabled: record.enabled,
      timestamp: new Date().toISOString(),
    };
  }
}
