import { Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CHANNELS, type Channel, ErrorCode, isChannel } from '@rp/contracts';
import { ApiError, ApiErrorResponse, SecuritySchemeName } from '@rp/platform';
import { AdminKeyGuard } from '../admin/secret-guards';
import { DLQ_STATUS_SCHEMA, REDRIVE_SCHEMA } from '../openapi/notification-schemas';
import { type DlqStatus, DlqService } from './dlq.service';

const JOB_ID = /^[A-Za-z0-9_-]{1,100}$/;

@ApiTags('notifications')
@ApiSecurity(SecuritySchemeName.adminKey)
@ApiErrorResponse(403, 'x-admin-key is missing or wrong')
@UseGuards(AdminKeyGuard)
@Controller('api/v1/rms/notifications/dlq')
export class DlqController {
  constructor(private readonly dlq: DlqService) {}

  @Get()
  @ApiOkResponse({ description: 'DLQ status', schema: DLQ_STATUS_SCHEMA })
  @ApiOperation({
    operationId: 'getDeadLetters',
    summary: 'Dead letter queue: counts by channel, the oldest entry and the latest 50',
  })
  status(): Promise<DlqStatus> {
    return this.dlq.status();
  }

  @Post('redrive')
  @HttpCode(202)
  @ApiResponse({ status: 202, description: 'Queued again', schema: REDRIVE_SCHEMA })
  @ApiOperation({
    operationId: 'redriveDeadLetters',
    summary: 'Queue every entry again (optionally one channel), each under its original job id',
  })
  redriveAll(@Query('channel') channel?: string) {
    if (channel !== undefined && !isChannel(channel)) {
      const message = `must be one of ${CHANNELS.join(', ')}`;
      throw new ApiError(400, ErrorCode.VALIDATION_FAILED, `channel ${message}`, {
        details: [{ field: 'channel', message }],
      });
    }
    return this.dlq.redriveAll(channel as Channel | undefined);
  }

  @Post(':id/redrive')
  @HttpCode(202)
  @ApiResponse({ status: 202, description: 'Queued again', schema: REDRIVE_SCHEMA })
  @ApiOperation({ operationId: 'redriveDeadLetter', summary: 'Queue one entry again under its original job id' })
  @ApiErrorResponse(404, 'No such entry')
  redriveOne(@Param('id') id: string) {
    if (!JOB_ID.test(id)) {
      throw new ApiError(400, ErrorCode.VALIDATION_FAILED, 'id must be a DLQ entry id', {
        details: [{ field: 'id', message: 'must be a DLQ entry id' }],
      });
    }
    return this.dlq.redriveOne(id);
  }
}
