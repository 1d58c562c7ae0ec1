import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse } from '@rp/platform';
import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { CompleteRequest, PrepareRequest, type PreparedPayment, type SubscriptionGrant } from '@rp/contracts';
import type { Request, Response } from 'express';
import { PaymentService } from '../payment/payment.service';
import { AssistedPaymentService } from './assisted-payment.service';
import { resourceUrl, sendReceipt } from './purchase-http';
import { SubscriptionsService } from './subscriptions.service';

/** The server-assisted flow: prepare -> the wallet signs the preimages -> complete. */
@ApiTags('subscription')
@Controller('api/v1/keys/subscribe')
export class AssistedController {
  constructor(
    private readonly assisted: AssistedPaymentService,
    private readonly payments: PaymentService,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Post('prepare')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Server-assisted flow, step 1: build the transfer and return the authorization preimages to sign',
  })
  @ApiErrorResponse(422, 'PAYMENT_SIMULATION_FAILED: the wallet cannot make the transfer')
  @ApiErrorResponse(503, 'PAYMENT_NOT_CONFIGURED')
  prepare(@Body() body: PrepareRequest): Promise<PreparedPayment> {
    return this.assisted.prepare(body.walletAddress);
  }

  @Post('complete')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Server-assisted flow, step 2: signed preimages in, settled payment and API key out (grant adds payTo)',
  })
  @ApiErrorResponse(402, "A signature is not the wallet's (PAYMENT_BAD_SIGNATURE) or the payment broke a rule")
  @ApiErrorResponse(409, 'PAYMENT_REPLAYED')
  async complete(
    @Body() body: CompleteRequest,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SubscriptionGrant> {
    const payload = await this.assisted.signedPayload(body);
    const { grant, receipt } = await this.subscriptions.purchase(
      payload,
      { email: body.email, projectName: body.projectName ?? null },
      'assisted',
      { resourceUrl: resourceUrl(req), field: 'txJson' },
    );
    sendReceipt(res, receipt);
    return { ...grant, payTo: this.payments.settings().payTo };
  }
}
