import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, ApiKeyAuth } from '@rp/platform';

/** The path parameter of `/rms/.../:walletAddress` routes. */
export const ApiWalletParam = () =>
  ApiParam({
    name: 'walletAddress',
    description: 'The wallet, a ledger G-address',
    schema: { type: 'string', pattern: '^G[A-Z2-7]{55}$' },
  });

/** A risk controller whose routes take a wallet in the path and an API key: tag, key, 400, 401, the parameter. */
export const RiskWalletRoutes = () =>
  applyDecorators(
    ApiTags('risk'),
    ApiKeyAuth(),
    ApiErrorResponse(400, 'VALIDATION_FAILED: one details[] entry per bad value'),
    ApiErrorResponse(401, 'No API key'),
    ApiWalletParam(),
  );
