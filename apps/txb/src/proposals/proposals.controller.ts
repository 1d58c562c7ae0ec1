import { Controller, Get, Query, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CallerIdentity, type ProposalsResponse, ProposalsQuery } from '@rp/contracts';
import { ApiKeyAuth, Caller } from '@rp/platform';
import { DependencyErrorsInterceptor } from '../http/dependency-errors.interceptor';
import { PROPOSALS_RESPONSE_SCHEMA } from '../openapi/txb-schemas';
import { ProposalsService } from './proposals.service';

@ApiTags('txb')
@ApiKeyAuth()
@Controller('api/v1/txb')
@UseInterceptors(DependencyErrorsInterceptor)
export class ProposalsController {
  constructor(private readonly proposals: ProposalsService) {}

  @Get('proposals')
  @ApiOperation({
    operationId: 'listProposals',
    summary: "A wallet's proposals built by your account (any of its API keys)",
    description: 'Newest first, live ones and those that ended in the last 24 hours. Other accounts see none of them.',
  })
  @ApiOkResponse({
    description: 'The proposals with their transaction and metadata',
    schema: PROPOSALS_RESPONSE_SCHEMA,
  })
  async list(@Caller() caller: CallerIdentity, @Query() query: ProposalsQuery): Promise<ProposalsResponse> {
    const proposals = await this.proposals.list(caller.account, query.wallet);
    return { success: true, proposals, total: proposals.length, timestamp: new Date().toISOString() };
  }
}
