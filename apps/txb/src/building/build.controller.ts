import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BuildTransactionRequest, type BuildResponse, type CallerIdentity } from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { DependencyErrorsInterceptor } from '../http/dependency-errors.interceptor';
import { buildRefusalError } from '../http/txb-http-errors';
import { BUILD_RESPONSE_SCHEMA } from '../openapi/txb-schemas';
import { BuildService } from './build.service';

@ApiTags('txb')
@ApiKeyAuth()
@Controller('api/v1/txb')
@UseInterceptors(DependencyErrorsInterceptor)
export class BuildController {
  constructor(private readonly builds: BuildService) {}

  @Post('build')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'buildTransaction',
    summary: 'Build a REPAY, LIQUIDATE, UNWIND or RESCUE transaction for a Blend position',
    description:
      'Simulates the transaction and keeps it as a proposal of the calling account for PROPOSAL_TTL_SECONDS. ' +
      "The unsigned XDR has the wallet as source, the simulation's resources, fee and authorization, and time " +
      "bounds ending at the proposal's expiresAt. UNWIND may answer with an approval to land first (warning " +
      'APPROVAL_REQUIRED, metadata.route "approve"). RESCUE (a user liquidation auction runs against the wallet): one ' +
      'submit that repays (or, lacking the debt token, supplies collateral) just enough to reach targetHealthFactor ' +
      '(default 1.10) and deletes the auction (DeleteLiquidationAuction, request 9); metadata.rescue lists the ' +
      'requests. The inclusion fee is priced from getFeeStats at feeLevel ' +
      '("normal", the default: p90 of recent Soroban inclusion fees; "high": p95 + 25%), never below the 100-stroop ' +
      'minimum, at most TXB_MAX_INCLUSION_FEE_STROOPS; transaction.fee carries it, and warning NETWORK_CONGESTED ' +
      'says recent fees are above the minimum.',
  })
  @ApiOkResponse({
    description: 'The transaction, its proposal, warnings and a preview',
    schema: BUILD_RESPONSE_SCHEMA,
  })
  @ApiErrorResponse(
    400,
    'Invalid input (VALIDATION_FAILED, MALFORMED_JSON); details[] names each field, feeLevel one of "normal", "high"',
  )
  @ApiErrorResponse(404, 'NO_POSITION_FOUND, POOL_NOT_FOUND, ACCOUNT_NOT_FOUND, AUCTION_NOT_FOUND (RESCUE without an auction)')
  @ApiErrorResponse(
    422,
    'NO_DEBT_TO_REPAY, NO_COLLATERAL_TO_LIQUIDATE, TOO_MANY_OPERATIONS, SIMULATION_FAILED (contractError), ' +
      'TARGET_ALREADY_REACHED, UNWIND_NOT_POSSIBLE, RESCUE_NOT_POSSIBLE (the wallet cannot reach health with what it ' +
      'holds, or the pool is not active), PRICE_UNAVAILABLE',
  )
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE: the ledger RPC failed')
  @ApiErrorResponse(503, 'NOT_CONFIGURED, STORE_UNAVAILABLE')
  async build(@Caller() caller: CallerIdentity, @Body() body: BuildTransactionRequest): Promise<BuildResponse> {
    const outcome = await this.builds.build(caller.account, body);
    if (!outcome.ok) throw buildRefusalError(outcome.refusal);
    return outcome.answer;
  }
}
