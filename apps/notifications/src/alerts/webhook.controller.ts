import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AlertWebhookRequest, parseRiskLevel, type RiskAlert } from '@rp/contracts';
import { ApiErrorResponse, SecuritySchemeName } from '@rp/platform';
import { WebhookSecretGuard } from '../admin/secret-guards';
import { IntakeBatcher } from './intake-batcher';
import { WEBHOOK_ANSWER_SCHEMA } from '../openapi/notification-schemas';

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
  constructor(private readonly intake: IntakeBatcher) {}

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
    // Taken in with the other requests of the moment (one batch, one round trip); the same alertId within 24 h is
    // a duplicate, remembered once its deliveries are queued, not before: a sender whose call died with this process
    // retries and is taken in (two copies in flight at once queue the same deterministic jobs, sent once).
    const result = await this.intake.submit(alert, {
      source: 'webhook',
      channels: body.routing?.channels,
      bypassCooldown: body.routing?.priority === 'urgent',
      acceptOnce: true,
    });
    return { success: true, ...result };
  }
}
