import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TxbStatusResponse } from '@rp/contracts';
import { STATUS_RESPONSE_SCHEMA } from '../openapi/txb-schemas';
import { ProposalsService } from '../proposals/proposals.service';

/** Public (no API key at the gateway): the service is up and how many proposals are live. */
@ApiTags('txb')
@Controller('api/v1/txb')
export class StatusController {
  constructor(private readonly proposals: ProposalsService) {}

  @Get('status')
  @ApiOperation({ operationId: 'getTxbStatus', summary: 'Transaction builder status (public)' })
  @ApiOkResponse({ description: 'Service status and live proposals', schema: STATUS_RESPONSE_SCHEMA })
  async status(): Promise<TxbStatusResponse> {
    const proposalsInMemory = await this.proposals.countLive().catch(() => undefined);
    return {
      success: true,
      service: 'txb',
      status: proposalsInMemory === undefined ? 'degraded' : 'ok',
      proposalsInMemory: proposalsInMemory ?? 0,
      timestamp: new Date().toISOString(),
    };
  }
}
