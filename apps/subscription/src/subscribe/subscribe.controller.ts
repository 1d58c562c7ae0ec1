import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import {
  ErrorCode,
  SubscribeRequest,
  type SubscriptionGrant,
  type SubscriptionStatus,
  SubscriptionStatusQuery,
} from '@rp/contracts';
import {
  PAYMENT_HEADERS,
  PAYMENT_RESPONSE_HEADER,
  PaymentHeaderError,
  type PaymentPayload,
  decodePaymentHeader,
  encodeX402Header,
} from '@rp/ledger';
import { ApiError, ApiErrorResponse, SecuritySchemeName } from '@rp/platform';
import type { Request, Response } from 'express';
import { PaymentService } from '../payment/payment.service';
import { SubscriptionsService } from './subscriptions.service';
import { resourceUrl } from './resource-url';

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
    const settings = this.payments.settings();
    const url = resourceUrl(req);
    const header = PAYMENT_HEADERS.find((name) => req.get(name) !== undefined);
    if (!header) throw this.payments.paymentRequired(url);
    const payload = readPayment(req.get(header) ?? '', header);
    const accepted = await this.payments.accept(
      payload,
      { email: body.email, projectName: body.projectName ?? null },
      'direct',
      { resourceUrl: url, field: header },
    );
    const grant = await this.subscriptions.grant(accepted, settings);
    res.setHeader(PAYMENT_RESPONSE_HEADER, encodeX402Header(accepted.receipt));
    res.setHeader('Cache-Control', 'no-store');
    return { ...grant, message: 'Store this API key now: it is displayed only once and cannot be recovered.' };
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
