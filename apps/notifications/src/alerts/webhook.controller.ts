import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AlertWebhookRequest, parseRiskLevel, type RiskAlert } from '@rp/contracts';
import { ApiErrorResponse, RedisClient, SecuritySchemeName } from '@rp/platform';
import { WebhookSecretGuard } from '../admin/secret-guards';
import { AlertIntake } from './alert-intake.service';
import { NotificationsSettings } from '../settings/notifications-settings';
import { WEBHOOK_ANSWER_SCHEMA } from '../openapi/notification-schemas';

/** An alert id is accepted once within this window. */
export const WEBHOOK_DEDUPE_SECONDS = 24 * 60 * 60;

export interface WebhookAnswer {
  success: true;
  alertId: string;
  queued: string[];
  suppressed: string[];
  duplicate?: true;
}

@ApiTags('notifications')
@ApiSecurity(SecuritySchemeName.webhookSecret)
@ApiErrorResponse(400, 'The body is not a valid alert (details name the field)')
@ApiErrorResponse(403, 'X-Webhook-Secret is missing or wrong')
@UseGuards(WebhookSecretGuard)
@Controller('api/v1/rms/notifications/webhook')
export class WebhookController {
  constructor(
    private readonly intake: AlertIntake,
    private readonly redis: RedisClient,
    private readonly config: NotificationsSettings,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiResponse({ status: 202, description: 'Taken in', schema: WEBHOOK_ANSWER_SCHEMA })
  @ApiOperation({
    operationId: 'receiveAlertWebhook',
    summary: 'External systems submit an alert',
    description:
      'Delivered to `routing.channels` (default: every enabled channel of the wallet); `routing.priority: "urgent"` ' +
      'skips the cooldown. The same `alertId` within 24 hours is accepted once (the repeat answers `duplicate: true`).',
  })
  async receive(@Body() body: AlertWebhookRequest): Promise<WebhookAnswer> {
    const alert: RiskAlert = {
      ...body.alert,
      riskLevel: parseRiskLevel(body.alert.riskLevel) ?? 'critical',
      triggers: [...body.alert.triggers],
    };
    // Marked seen once queued, not before: a sender whose call died with this process retries and is taken in
    // (two copies in flight at once queue the same deterministic delivery jobs, which are sent once).
    const seen = `${this.config.keyPrefix()}webhook-alert:${alert.alertId}`;
    if ((await this.redis.exists(seen)) === 1) {
      return { success: true, alertId: alert.alertId, queued: [], suppressed: [], duplicate: true };
    }
    const result = await this.intake.submit(alert, {
      source: 'webhook',
      channels: body.routing?.channels,
      bypassCooldown: body.routing?.priority === 'urgent',
    });
    await this.redis.set(seen, '1', 'EX', WEBHOOK_DEDUPE_SECONDS);
    return { success: true, ...result };
  }
}
