import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { type CallerIdentity, KEY_TIERS, type KeyDescription, SubscriptionErrorCode as Code } from '@rp/contracts';
import { ApiError, ApiKeyAuth, Caller } from '@rp/platform';
import { KeysService, describeKey } from './keys.service';

const KEY_DESCRIPTION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['keyId', 'tier', 'rateLimit', 'burst', 'expiresAt', 'email', 'account'],
  properties: {
    keyId: { type: 'string', format: 'uuid' },
    tier: { type: 'string', enum: [...KEY_TIERS] },
    rateLimit: { type: 'integer', description: 'Requests per minute (the refill of the key’s bucket).' },
    burst: { type: 'integer', description: 'How many calls may come at once (the bucket’s capacity).' },
    expiresAt: { type: 'string', format: 'date-time' },
    email: { type: 'string', nullable: true, description: 'The contact the key was bought with; not an account.' },
    account: {
      type: 'string',
      example: 'wallet:GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX',
      description:
        'Whose key it is, and what everything it creates belongs to: `wallet:<G-address>` for a bought key (the ' +
        'wallet that paid; every key it buys shares it), `partner:<name>` for a partner key.',
    },
  },
};

/** The key a call was made with, as stored now (a key revoked since the gateway cached it is refused). */
@ApiTags('keys')
@Controller('api/v1/keys')
export class MeController {
  constructor(private readonly keys: KeysService) {}

  @Get('me')
  @ApiOperation({
    operationId: 'getCurrentKey',
    summary: 'The API key this call is made with: tier, rate limit, burst, expiry, account',
  })
  @ApiOkResponse({ description: 'The key', schema: KEY_DESCRIPTION_SCHEMA })
  @ApiKeyAuth()
  async me(@Caller() caller: CallerIdentity): Promise<KeyDescription> {
    const key = await this.keys.stateOf(caller.keyId);
    if (key.usable) return describeKey(key.record);
    if (key.reason === 'expired') throw new ApiError(401, Code.KEY_EXPIRED, 'This API key has expired');
    throw new ApiError(401, Code.INVALID_API_KEY, 'This API key is not valid');
  }
}
