import { createHash } from 'node:crypto';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ErrorCode, SubscribeRequest, type SubscriptionStatus, SubscriptionStatusQuery } from '@rp/contracts';
import { PAYMENT_HEADERS, PaymentHeaderError, type PaymentPayload, decodePaymentHeader } from '@rp/ledger';
import {
  ApiError,
  ApiErrorResponse,
  type HttpReply,
  type HttpRequest,
  SecuritySchemeName,
  headerOf,
} from '@rp/platform';
import { KEY_SHOWN_ONCE } from '../keys/keys.service';
import { PaymentConfiguredGuard } from '../payment/payment-context';
import { PaymentAnswers } from './payment-answers';
import { resourceUrl } from './purchase-http';
import { GRANT_SCHEMA, SETTLING_SCHEMA, SUBSCRIPTION_STATUS_SCHEMA } from './subscription-schemas';
import { SubscriptionsService } from './subscriptions.service';

/** The direct flow: 402 with the requirements, then the signed payment in a header, then the key. */
@ApiTags('subscription')
@Controller('api/v1/keys/subscribe')
export class SubscribeController {
  constructor(
    private readonly answers: PaymentAnswers,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Post()
  @UseGuards(PaymentConfiguredGuard)
  @ApiOperation({
    operationId: 'subscribe',
    summary: 'Buy an API key (direct x402 flow)',
    description:
      'Without a payment: 402 with `paymentRequirements`, `x402Version`, `accepts` and the `PAYMENT-REQUIRED` header. ' +
      'With a signed exact payment in `X-PAYMENT-SIGNATURE` (or `PAYMENT-SIGNATURE`, `X-PAYMENT`): verified, settled ' +
      'with the server paying the fee, and answered with the key (shown once) and `PAYMENT-RESPONSE`. A settlement ' +
      'not final within the settlement bound answers 202 `settling` with its txHash; the identical request sent again ' +
      '(same payment, same email, while its authorization lives) then answers the grant with a fresh key for that ' +
      'payment and revokes any key issued for it before: a client that lost the answer just retries.',
  })
  @ApiSecurity(SecuritySchemeName.payment)
  @ApiOkResponse({
    description: 'The grant: apiKey, tier, rateLimit, expiresAt, durationDays, network, message',
    schema: GRANT_SCHEMA,
  })
  @ApiAcceptedResponse({
    description: 'Sent, not final yet: {status: "settling", txHash}, with Retry-After; send the same request again',
    schema: SETTLING_SCHEMA,
  })
  @ApiErrorResponse(402, 'Payment required, or the payment broke the rule named by `code`')
  @ApiErrorResponse(409, 'PAYMENT_REPLAYED (used before) or PAYMENT_IN_PROGRESS (being settled; Retry-After)')
  @ApiErrorResponse(429, 'PAYER_COOLING_DOWN: this payer’s payments failed on the ledger')
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE: nothing was charged')
  @ApiErrorResponse(503, 'PAYMENT_NOT_CONFIGURED, or SETTLEMENT_BUSY (nothing was charged; Retry-After)')
  async subscribe(@Body() body: SubscribeRequest, @Req() req: HttpRequest, @Res() reply: HttpReply): Promise<void> {
    const url = resourceUrl(req);
    const header = PAYMENT_HEADERS.find((name) => headerOf(req.headers, name) !== undefined);
    if (!header) throw this.answers.challenge(url);
    const payload = readPayment(headerOf(req.headers, header) ?? '', header);
    const outcome = await this.subscriptions.purchase({
      payload,
      buyer: { email: body.email, projectName: body.projectName ?? null },
      flow: 'direct',
      digest: createHash('sha256').update(payload.payload.transaction).digest('hex'),
    });
    if (outcome.kind === 'refused') throw this.answers.refusal(outcome.refusal, url, header);
    if (outcome.kind === 'settling') return this.answers.sendSettling(reply, outcome.txHash, outcome.retryAfterSeconds);
    this.answers.sendPaid(reply, { ...outcome.grant, message: KEY_SHOWN_ONCE }, outcome.receipt);
  }

  @Get('status')
  @ApiOperation({
    operationId: 'getSubscriptionStatus',
    summary: 'Subscription status of an email: active, tier, expiry, last payment',
  })
  @ApiOkResponse({ description: 'The subscription of the email', schema: SUBSCRIPTION_STATUS_SCHEMA })
  @ApiErrorResponse(404, 'SUBSCRIPTION_NOT_FOUND: the email never paid')
  status(@Query() query: SubscriptionStatusQuery): Promise<SubscriptionStatus> {
    return this.subscriptions.status(query.email);
  }
}

function readPayment(value: string, header: string): PaymentPayload {
  try {
    return decodePaymentHeader(value, header);
  } catch (error) {
    if (!(error instanceof PaymentHeaderError)) throw error;
    throw new ApiError(400, ErrorCode.VALIDATION_FAILED, error.message, {
      details: [{ field: error.field, message: error.reason }],
    });
  }
}
