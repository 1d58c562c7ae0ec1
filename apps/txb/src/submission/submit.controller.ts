import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CallerIdentity, type SubmitResponse, SubmitTransactionRequest } from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { DependencyErrorsInterceptor } from '../http/dependency-errors.interceptor';
import { submitRefusalError } from '../http/txb-http-errors';
import { SUBMIT_RESPONSE_SCHEMA } from '../openapi/txb-schemas';
import { SubmissionService } from './submission.service';

@ApiTags('txb')
@ApiKeyAuth()
@Controller('api/v1/txb')
@UseInterceptors(DependencyErrorsInterceptor)
export class SubmitController {
  constructor(private readonly submissions: SubmissionService) {}

  @Post('submit')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'submitTransaction',
    summary: 'Submit the signed transaction of one of your proposals',
    description:
      "The envelope's hash must be one of the calling account's live proposals. `rpcUrl`, when given, must be on " +
      'TXB_ALLOWED_RPC_URLS. DUPLICATE counts as success; TRY_AGAIN_LATER is retried with backoff. The tracker then ' +
      'follows the transaction until the ledger shows it: see GET /api/v1/txb/proposals.',
  })
  @ApiOkResponse({ description: 'Accepted by the network (or already submitted)', schema: SUBMIT_RESPONSE_SCHEMA })
  @ApiErrorResponse(400, 'VALIDATION_FAILED, TRANSACTION_UNSIGNED, WRONG_NETWORK, RPC_URL_NOT_ALLOWED')
  @ApiErrorResponse(404, 'PROPOSAL_NOT_FOUND: no proposal of yours has this transaction')
  @ApiErrorResponse(410, 'PROPOSAL_EXPIRED')
  @ApiErrorResponse(422, 'SUBMISSION_FAILED: the network refused it (resultCode: txBadSeq, txBadAuth, txTooLate...)')
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE: no answer; the transaction is kept and followed')
  @ApiErrorResponse(503, 'LEDGER_BUSY (Retry-After), NOT_CONFIGURED, STORE_UNAVAILABLE')
  async submit(@Caller() caller: CallerIdentity, @Body() body: SubmitTransactionRequest): Promise<SubmitResponse> {
    const outcome = await this.submissions.submit(caller.account, body);
    if (!outcome.ok) throw submitRefusalError(outcome.refusal);
    return { success: true, txHash: outcome.txHash };
  }
}
