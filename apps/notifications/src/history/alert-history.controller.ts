import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ALERT_HISTORY_DEFAULT_LIMIT,
  ALERT_HISTORY_MAX_LIMIT,
  AlertHistoryQuery,
  type AlertHistoryResponse,
  type CallerIdentity,
  ErrorCode,
  parseRiskLevel,
} from '@rp/contracts';
import { ApiError, ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { accountOf } from '../channel-configs/configuration-view';
import { HistoryReader } from './history-reader';
import { ALERT_HISTORY_SCHEMA } from './history-schemas';

@ApiTags('notifications')
@ApiKeyAuth()
@ApiErrorResponse(400, 'VALIDATION_FAILED: one details[] entry per bad value')
@ApiErrorResponse(401, 'No API key')
@Controller('api/v1/rms/alerts')
export class AlertHistoryController {
  constructor(private readonly history: HistoryReader) {}

  @Get()
  @ApiOperation({
    operationId: 'listAlerts',
    summary: "Alerts raised for your account's wallets, with what became of each on your channels",
    description:
      'Your wallets are those your account registered a channel for or set a risk configuration for; ' +
      '`walletAddress` narrows to one of them (another wallet: 404). Each alert lists, per channel ' +
      'configuration of yours, its outcome: `queued`, `delivered`, `failed` (with the reason) or `suppressed` ' +
      '(cooldown, or below the channel minimum). A monitor alert that every channel held back inside the cooldown ' +
      'is the same condition seen again; it is not listed (the health series at `GET /rms/history/{walletAddress}` ' +
      'has every round). `actions` lists the closes your risk agent reported (`POST /rms/events`). `level` keeps ' +
      'alerts at that level or worse (either vocabulary), `since` those evaluated at or after it; newest first, ' +
      `\`limit\` of them (default ${ALERT_HISTORY_DEFAULT_LIMIT}, at most ${ALERT_HISTORY_MAX_LIMIT}). Kept a year.`,
  })
  @ApiOkResponse({ description: 'The alerts, newest first', schema: ALERT_HISTORY_SCHEMA })
  @ApiErrorResponse(404, "walletAddress is not one of your account's wallets")
  async list(@Caller() caller: CallerIdentity, @Query() query: AlertHistoryQuery): Promise<AlertHistoryResponse> {
    const answer = await this.history.alertHistory(accountOf(caller), {
      walletAddress: query.walletAddress,
      level: query.level === undefined ? undefined : parseRiskLevel(query.level),
      since: query.since === undefined ? undefined : new Date(query.since),
      limit: query.limit === undefined ? undefined : Number(query.limit),
    });
    if (!answer) throw new ApiError(404, ErrorCode.NOT_FOUND, `No alert history for ${query.walletAddress}`);
    return answer;
  }
}
