import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import {
  ErrorCode,
  SubscribeRequest,
  type SubscriptionGrant,
  type SubscriptionStatus,
  SubscriptionStatusQuery,
} from '@rp/contracts';
import { PAYMENT_HEADERS, PaymentHeaderError, type PaymentPayload, decodePaymentHeader } from '@rp/ledger';
import { ApiError, ApiErrorResponse, SecuritySchemeName } from '@rp/platform';
import type { Request, Response } from 'express';
import { KEY_SHOWN_ONCE } from '../keys/keys.service';
import { PaymentService } from '../payment/payment.service';
import { SubscriptionsService } from './subscriptions.service';
import { resourceUrl, sendReceipt } from './purchase-http';

/** The direct flow: 402 with the requirements, then the signed payment in a header, then the key. */
@ApiTags('subscription')
@Controller('api/v1/keys/subscribe')
export class SubscribeController {
  constructor(
    private readonly payments: PaymentService,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Buy an API key (direct x402 flow)',
    description:
      'Without a payment: 402 with `paymentRequirements`, `x402Version`, `accepts` and the `PAYMENT-REQUIRED` header. ' +
      'With a signed exact payment in `X-PAYMENT-SIGNATURE` (or `PAYMENT-SIGNATURE`, `X-PAYMENT`): verified, settled ' +
      'with the server paying the fee, and answered with the key (shown once) and `PAYMENT-RESPONSE`.',
  })
  @ApiSecurity(SecuritySchemeName.payment)
  @ApiOkResponse({ description: 'The grant: apiKey, tier, rateLimit, expiresAt, durationDays, network, message' })
  @ApiErrorResponse(402, 'Payment required, or the payment broke the rule named by `code`')
  @ApiErrorResponse(409, 'PAYMENT_REPLAYED: this payment was already used')
  @ApiErrorResponse(502, 'LEDGER_UNAVAILABLE: nothing was charged')
  @ApiErrorResponse(503, 'PAYMENT_NOT_CONFIGURED')
  async subscribe(
    @Body() body: SubscribeRequest,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SubscriptionGrant> {
    const url = resourceUrl(req);
    const header = PAYMENT_HEADERS.find((name) => req.get(name) !== undefined);
    if (!header) throw this.payments.paymentRequired(url);
    const payload = readPayment(req.get(header) ?? '', header);
    const { grant, receipt } = await this.subscriptions.purchase(
      payload,
      { email: body.email, projectName: body.projectName ?? null },
      'direct',
      { resourceUrl: url, field: header },
    );
    sendReceipt(res, receipt);
    return { ...grant, message: KEY_SHOWN_ONCE };
  }

  @Get('status')
  @ApiOperation({ summary: 'Subscription status of an email: active, tier, expiry, last payment' })
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
      details: [{ field: error.field, message: error.message.replace(/^\S+ /, '') }],
    });
  }
}
