import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ACCOUNT_EVENT_TYPES, type AccountEventAnswer, AccountEventRequest, type CallerIdentity } from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { accountOf } from '../channel-configs/configuration-view';
import { ACCOUNT_EVENT_ANSWER_SCHEMA } from './account-event-schemas';
import { AccountEventsService } from './account-events.service';

@ApiTags('notifications')
@ApiKeyAuth()
@ApiErrorResponse(400, 'A field is invalid (details name it)')
@ApiErrorResponse(401, 'No API key')
@Controller('api/v1/rms/events')
export class AccountEventsController {
  constructor(private readonly events: AccountEventsService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'recordAccountEvent',
    summary: "Tell a wallet's owner what your risk agent did, on your own channels of that wallet",
    description:
      'A risk agent reports what it does with a wallet (one of ' +
      ACCOUNT_EVENT_TYPES.map((type) => `\`${type}\``).join(', ') +
      ') under its own API key. The event is delivered only to the enabled channel configurations your account ' +
      'registered for `walletAddress` (`POST /rms/notifications/messenger|channelhook|email`), never to another ' +
      "account's, through the same delivery pipeline as risk alerts: retries with backoff, pacing per destination, " +
      'the dead letter queue. Events that repeat (`refused`, `fee_balance_low`, `subscription_lapsed`, ' +
      '`subscription_renewed`, `standby_took_over`) pass a cooldown per wallet, account and type; closes are never ' +
      "held back. Channel minimum risk levels apply to risk alerts, not to events. `eventId` is the caller's: the same " +
      'id from the same account within 7 days is taken once (the repeat answers `duplicate: true`), so a caller that ' +
      'lost the answer just sends it again. With no channel registered for the wallet, nothing is queued.',
  })
  @ApiResponse({ status: 202, description: 'Taken in', schema: ACCOUNT_EVENT_ANSWER_SCHEMA })
  take(@Caller() caller: CallerIdentity, @Body() body: AccountEventRequest): Promise<AccountEventAnswer> {
    return this.events.take(accountOf(caller), body);
  }
}
