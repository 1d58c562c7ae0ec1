import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { CompleteRequest, PrepareRequest, SubscriptionErrorCode as Code, type PreparedPayment } from '@rp/contracts';
import { ApiError, ApiErrorResponse, type HttpReply, type HttpRequest } from '@rp/platform';
import { PaymentConfiguredGuard } from '../payment/payment-context';
import { AssistedPaymentService } from './assisted-payment.service';
import { PaymentAnswers } from './payment-answers';
import { resourceUrl } from './purchase-http';
import { GRANT_SCHEMA, PREPARED_PAYMENT_SCHEMA, SETTLING_SCHEMA } from './subscription-schemas';
import { SubscriptionsService } from './subscriptions.service';

/** The server-assisted flow: prepare -> the wallet signs the preimages -> complete. */
@ApiTags('subscription')
@Controller('api/v1/keys/subscribe')
@UseGuards(PaymentConfiguredGuard)
export class AssistedController {
  constructor(
    private readonly assisted: AssistedPaymentService,
    private readonly answers: PaymentAnswers,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Post('prepare')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'prepareSubscription',
    summary: 'Server-assisted flow, step 1: build the transfer and return the authorization preimages to sign',
  })
  @ApiOkResponse({ description: 'The transfer and the preimages to sign', schema: PREPARED_PAYMENT_SCHEMA })
  @ApiErrorResponse(422, 'PAYMENT_SIMULATION_FAILED: the wallet cannot make the transfer')
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE')
  @ApiErrorResponse(503, 'PAYMENT_NOT_CONFIGURED')
  async prepare(@Body() body: PrepareRequest): Promise<PreparedPayment> {
    const prepared = await this.assisted.prepare(body.walletAddress);
    if (!('kind' in prepared)) return prepared;
    if (prepared.kind === 'wallet_cannot_pay') {
      throw new ApiError(
        422,
        Code.PAYMENT_SIMULATION_FAILED,
        `The wallet cannot make this payment: ${prepared.detail}`,
      );
    }
    throw this.answers.refusal({ kind: 'ledger_unavailable', detail: prepared.detail }, '');
  }

  @Post('complete')
  @ApiOperation({
    operationId: 'completeSubscription',
    summary: 'Server-assisted flow, step 2: signed preimages in, settled payment and API key out (grant adds payTo)',
    description:
      'Every static rule and the replay check run on the signed payment before any simulation. Like the direct ' +
      'flow: 202 `settling` when the settlement is not final within the bound; the identical request again ' +
      'collects the grant.',
  })
  @ApiOkResponse({ description: 'The grant, with payTo', schema: GRANT_SCHEMA })
  @ApiAcceptedResponse({
    description: 'Sent, not final yet: {status: "settling", txHash}, with Retry-After; send the same request again',
    schema: SETTLING_SCHEMA,
  })
  @ApiErrorResponse(402, "A signature is not the wallet's (PAYMENT_BAD_SIGNATURE) or the payment broke a rule")
  @ApiErrorResponse(409, 'PAYMENT_REPLAYED or PAYMENT_IN_PROGRESS')
  async complete(@Body() body: CompleteRequest, @Req() req: HttpRequest, @Res() reply: HttpReply): Promise<void> {
    const url = resourceUrl(req);
    const signed = this.assisted.signedPayload(body);
    if ('kind' in signed) throw this.answers.refusal(signed, url);
    const outcome = await this.subscriptions.purchase({
      payload: signed.payload,
      buyer: { email: body.email, projectName: body.projectName ?? null },
      flow: 'assisted',
      digest: signed.digest,
    });
    if (outcome.kind === 'refused') throw this.answers.refusal(outcome.refusal, url, 'txJson');
    if (outcome.kind === 'settling') return this.answers.sendSettling(reply, outcome.txHash, outcome.retryAfterSeconds);
    this.answers.sendPaid(reply, { ...outcome.grant, payTo: this.answers.requirements().payTo }, outcome.receipt);
  }
}
