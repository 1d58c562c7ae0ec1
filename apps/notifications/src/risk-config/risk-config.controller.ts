import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  type CallerIdentity,
  ErrorCode,
  PutRiskConfigRequest,
  type RiskConfigInput,
  type RiskConfigResponse,
  RiskWalletParams,
  effectiveRiskConfig,
} from '@rp/contracts';
import { ApiError, ApiErrorResponse, Caller } from '@rp/platform';
import { RiskWalletRoutes } from '../openapi/wallet-routes';
import { accountOf } from '../channel-configs/configuration-view';
import { RISK_CONFIG_SCHEMA } from './risk-config-schemas';
import { RiskConfigRepository, type RiskConfigRecord } from './risk-config.repository';

const DESCRIPTION =
  'Level bounds (health factors: below `medium` a position is medium, below `high` high, below `critical` ' +
  'critical; strictly decreasing, critical above 1.0), the oracle age, utilisation and depeg bounds. Unset fields ' +
  'take the defaults (1.50 / 1.25 / 1.10, 300 s, 8000 / 9000 bps, 200 bps); `defaults` names them. The risk answer ' +
  'and the monitor use these bounds for the wallet.';

@RiskWalletRoutes()
@Controller('api/v1/rms/config')
export class RiskConfigController {
  constructor(private readonly configs: RiskConfigRepository) {}

  @Get(':walletAddress')
  @ApiOperation({
    operationId: 'getRiskConfig',
    summary: "The wallet's risk configuration set by your account",
    description: DESCRIPTION,
  })
  @ApiOkResponse({ description: 'The effective configuration', schema: RISK_CONFIG_SCHEMA })
  @ApiErrorResponse(404, 'Your account has set no risk configuration for this wallet')
  async get(@Caller() caller: CallerIdentity, @Param() params: RiskWalletParams): Promise<RiskConfigResponse> {
    const record = await this.configs.owned(accountOf(caller), params.walletAddress);
    if (!record) {
      throw new ApiError(404, ErrorCode.NOT_FOUND, `No risk configuration for ${params.walletAddress}`);
    }
    return view(record);
  }

  @Put(':walletAddress')
  @ApiOperation({
    operationId: 'putRiskConfig',
    summary: "Set (replace) the wallet's risk configuration",
    description: DESCRIPTION,
  })
  @ApiOkResponse({ description: 'The effective configuration', schema: RISK_CONFIG_SCHEMA })
  async put(
    @Caller() caller: CallerIdentity,
    @Param() params: RiskWalletParams,
    @Body() body: PutRiskConfigRequest,
  ): Promise<RiskConfigResponse> {
    const settings = settingsOf(body);
    const account = accountOf(caller);
    if (Object.keys(settings).length === 0) {
      // Nothing set is the defaults: nothing is stored (GET answers 404 again, as for a wallet never configured).
      await this.configs.remove(account, params.walletAddress);
      return view({ walletAddress: params.walletAddress, settings: {}, updatedAt: new Date() });
    }
    return view(await this.configs.put(account, params.walletAddress, settings));
  }
}

/** The fields the request set, as plain data (the DTO instance may carry undefined ones). */
function settingsOf(body: PutRiskConfigRequest): RiskConfigInput {
  const levels = body.levels && {
    ...(body.levels.medium !== undefined && { medium: body.levels.medium }),
    ...(body.levels.high !== undefined && { high: body.levels.high }),
    ...(body.levels.critical !== undefined && { critical: body.levels.critical }),
  };
  const scalars = (['oracleMaxAgeSeconds', 'utilizationWarnBps', 'utilizationAlertBps', 'depegBps'] as const).filter(
    (key) => body[key] !== undefined,
  );
  const anyLevel = levels !== undefined && Object.keys(levels).length > 0;
  return { ...(anyLevel && { levels }), ...Object.fromEntries(scalars.map((key) => [key, body[key]])) };
}

function view(record: Pick<RiskConfigRecord, 'walletAddress' | 'settings' | 'updatedAt'>): RiskConfigResponse {
  const { config, defaults } = effectiveRiskConfig(record.settings);
  return {
    success: true,
    walletAddress: record.walletAddress,
    ...config,
    defaults,
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
}
