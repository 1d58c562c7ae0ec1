import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  type CallerIdentity,
  ErrorCode,
  HealthHistoryQuery,
  type HealthHistoryResponse,
  RiskWalletParams,
} from '@rp/contracts';
import { ApiError, ApiErrorResponse, Caller } from '@rp/platform';
import { RiskWalletRoutes } from '../openapi/wallet-routes';
import { accountOf } from '../channel-configs/configuration-view';
import { DEFAULT_RANGE_MS, MAX_RANGE_MS, tierFor } from './health-tiers';
import { HistoryReader } from './history-reader';
import { HEALTH_HISTORY_SCHEMA } from './history-schemas';

@RiskWalletRoutes()
@Controller('api/v1/rms/history')
export class HealthHistoryController {
  constructor(private readonly history: HistoryReader) {}

  @Get(':walletAddress')
  @ApiOperation({
    operationId: 'getHealthHistory',
    summary: "A wallet's health factor over time, per pool, as the monitor saw it",
    description:
      'The monitor records each watched position (health factor, level, triggers) at every round where one of ' +
      'them changed (the health factor to 4 decimals), and at least every 5 minutes: those rounds are kept 24 ' +
      'hours, one point per hour (the worst of the hour: lowest health factor, worst level, every trigger ' +
      'seen) 30 days, one per day a year. The range picks the resolution: up to 2 hours within the last 24 hours, ' +
      'every round; up to 31 days within the last 30, hourly; otherwise daily (`resolution` says which). `to` ' +
      'defaults to now, `from` to an hour before `to`; a range is at most 366 days, and a series at most 2000 ' +
      "points (the newest). Your account's wallets only (a channel registered or a risk configuration set): " +
      'another wallet is 404.',
  })
  @ApiOkResponse({ description: 'One series per pool, oldest point first', schema: HEALTH_HISTORY_SCHEMA })
  @ApiErrorResponse(404, "Not one of your account's wallets")
  async get(
    @Caller() caller: CallerIdentity,
    @Param() params: RiskWalletParams,
    @Query() query: HealthHistoryQuery,
  ): Promise<HealthHistoryResponse> {
    const now = new Date();
    const to = query.to === undefined ? now : new Date(query.to);
    const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_MS) : new Date(query.from);
    if (from >= to) throw badRange('from', 'must be before to');
    if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw badRange('from', 'must be at most 366 days before to');
    const answer = await this.history.healthHistory(accountOf(caller), {
      walletAddress: params.walletAddress,
      poolAddress: query.poolAddress,
      from,
      to,
      tier: tierFor(from, to, now),
    });
    if (!answer) throw new ApiError(404, ErrorCode.NOT_FOUND, `No history for ${params.walletAddress}`);
    return answer;
  }
}

function badRange(field: string, message: string): ApiError {
  return new ApiError(400, ErrorCode.VALIDATION_FAILED, `${field} ${message}`, { details: [{ field, message }] });
}
