import { Controller, Get, Param, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type CallerIdentity, type RiskResponse, RiskWalletParams } from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { accountOf } from '../channel-configs/configuration-view';
import { RiskBounds } from '../risk-config/risk-bounds';
import { RISK_RESPONSE_SCHEMA } from './risk-schemas';
import { positionView } from './risk-alert';
import { RiskErrorsInterceptor } from './risk-errors.interceptor';
import { RiskEvaluator } from './risk-evaluator';

@ApiTags('risk')
@ApiKeyAuth()
@Controller('api/v1/rms/risk')
@UseInterceptors(RiskErrorsInterceptor)
export class RiskController {
  constructor(
    private readonly evaluator: RiskEvaluator,
    private readonly bounds: RiskBounds,
  ) {}

  @Get(':walletAddress')
  @ApiOperation({
    operationId: 'getRisk',
    summary: "A wallet's positions in the watched pools, with their risk",
    description:
      'One entry per pool of RMS_POOLS where the wallet has collateral or debt, read from the ledger now and valued ' +
      "with Blend v2's integer math at the pool oracle's prices: the spec's Alert fields. Without debt the health " +
      'factor is null and the level low. Each position also says where it is liquidated: liquidationPrices, ' +
      'healthFactorIf and liquidationBuffer, in the same integer math. riskLevel follows the level bounds your ' +
      'account set for the wallet (PUT /api/v1/rms/config/:walletAddress), else the defaults.',
  })
  @ApiParam({
    name: 'walletAddress',
    description: 'The wallet, a ledger G-address',
    schema: { type: 'string', pattern: '^G[A-Z2-7]{55}$' },
  })
  @ApiOkResponse({ description: 'The positions (empty when the wallet has none)', schema: RISK_RESPONSE_SCHEMA })
  @ApiErrorResponse(400, 'VALIDATION_FAILED: walletAddress is not a ledger G-address')
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE, PRICE_UNAVAILABLE')
  @ApiErrorResponse(503, 'NOT_CONFIGURED (CONTRACT_RPC_URL or RMS_POOLS unset), POOL_NOT_FOUND')
  async risk(@Caller() caller: CallerIdentity, @Param() params: RiskWalletParams): Promise<RiskResponse> {
    const { levels, bounds } = await this.bounds.ofAccount(accountOf(caller), params.walletAddress);
    const evaluation = await this.evaluator.evaluate([params.walletAddress], () => bounds);
    return {
      success: true,
      walletAddress: params.walletAddress,
      positions: evaluation.positions.map((position) => ({
        ...positionView(position, evaluation.evaluatedAt),
        ...position.scenarios(),
      })),
      levels,
      evaluatedAt: evaluation.evaluatedAt,
      timestamp: new Date().toISOString(),
    };
  }
}
