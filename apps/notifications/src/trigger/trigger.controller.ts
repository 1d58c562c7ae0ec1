import { Body, Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { TriggerRequest, type TriggerResponse } from '@rp/contracts';
import { ApiErrorResponse, SecuritySchemeName } from '@rp/platform';
import { AdminKeyGuard } from '../admin/secret-guards';
import { RiskErrorsInterceptor } from '../risk/risk-errors.interceptor';
import { TRIGGER_RESPONSE_SCHEMA } from '../risk/risk-schemas';
import { TriggerService } from './trigger.service';

@ApiTags('notifications')
@Controller('api/v1/rms/notifications')
@UseGuards(AdminKeyGuard)
@UseInterceptors(RiskErrorsInterceptor)
export class TriggerController {
  constructor(private readonly triggers: TriggerService) {}

  @Post('trigger')
  @HttpCode(200)
  @ApiSecurity(SecuritySchemeName.adminKey)
  @ApiOperation({
    operationId: 'triggerRiskCheck',
    summary: 'Evaluate now and send alerts, skipping the cooldown (admin)',
    description:
      'Evaluates one watched wallet (walletAddress) or every wallet with an enabled channel, and sends an alert for ' +
      "each position with debt at or above minRiskLevel (either vocabulary; when omitted, each channel's own " +
      'minimum). A wallet without an enabled channel is not evaluated.',
  })
  @ApiOkResponse({
    description: 'Wallets evaluated, alerts raised, deliveries queued',
    schema: TRIGGER_RESPONSE_SCHEMA,
  })
  @ApiErrorResponse(400, 'VALIDATION_FAILED: walletAddress or minRiskLevel')
  @ApiErrorResponse(403, 'INVALID_ADMIN_KEY')
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE, PRICE_UNAVAILABLE')
  @ApiErrorResponse(503, 'ADMIN_NOT_CONFIGURED, NOT_CONFIGURED, POOL_NOT_FOUND')
  trigger(@Body() body: TriggerRequest): Promise<TriggerResponse> {
    return this.triggers.trigger(body);
  }
}
