import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Controller, Get } from '@nestjs/common';
import { type CallerIdentity, type KeyDescription, SubscriptionErrorCode as Code } from '@rp/contracts';
import { ApiError, ApiKeyAuth, Caller } from '@rp/platform';
import { KeyRepository } from './key.repository';
import { describeKey } from './keys.service';

/** The key a call was made with, as stored now (a key revoked since the gateway cached it is refused). */
@ApiTags('keys')
@Controller('api/v1/keys')
export class MeController {
  constructor(private readonly keys: KeyRepository) {}

  @Get('me')
  @ApiOperation({ summary: 'The API key this call is made with: tier, rate limit, burst, expiry' })
  @ApiKeyAuth()
  async me(@Caller() caller: CallerIdentity): Promise<KeyDescription> {
    const record = await this.keys.findById(caller.keyId);
    if (!record || record.revokedAt) throw new ApiError(401, Code.INVALID_API_KEY, 'This API key is not valid');
    if (record.expiresAt.getTime() <= Date.now()) throw new ApiError(401, Code.KEY_EXPIRED, 'This API key has expired');
    return describeKey(record);
  }
}
