import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CallerIdentity, type KeyDescription, SubscriptionErrorCode as Code } from '@rp/contracts';
import { ApiError, ApiKeyAuth, Caller } from '@rp/platform';
import { KeysService, describeKey } from './keys.service';

/** The key a call was made with, as stored now (a key revoked since the gateway cached it is refused). */
@ApiTags('keys')
@Controller('api/v1/keys')
export class MeController {
  constructor(private readonly keys: KeysService) {}

  @Get('me')
  @ApiOperation({ summary: 'The API key this call is made with: tier, rate limit, burst, expiry' })
  @ApiKeyAuth()
  async me(@Caller() caller: CallerIdentity): Promise<KeyDescription> {
    const key = await this.keys.stateOf(caller.keyId);
    if (key.usable) return describeKey(key.record);
    if (key.reason === 'expired') throw new ApiError(401, Code.KEY_EXPIRED, 'This API key has expired');
    throw new ApiError(401, Code.INVALID_API_KEY, 'This API key is not valid');
  }
}
