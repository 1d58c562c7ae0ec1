import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Header, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { type LedgerNetwork, PartnerKeyRequest, SubscriptionErrorCode as Code } from '@rp/contracts';
import { ApiError, ApiErrorResponse, SecuritySchemeName } from '@rp/platform';
import { SubscriptionConfig } from '../config/subscription.config';
import { AdminKeyGuard } from './admin-key.guard';
import { PARTNER_KEY_SCHEMA, REVOKED_KEY_SCHEMA } from '../subscribe/subscription-schemas';
import { KEY_SHOWN_ONCE, KeysService } from './keys.service';

/** Operators issue partner keys (custom rate, burst and duration) and revoke any key. */
@ApiTags('keys')
@ApiSecurity(SecuritySchemeName.adminKey)
@ApiErrorResponse(403, 'INVALID_ADMIN_KEY')
@ApiErrorResponse(503, 'ADMIN_NOT_CONFIGURED')
@Controller('api/v1/keys')
@UseGuards(AdminKeyGuard)
export class PartnerKeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly config: SubscriptionConfig,
  ) {}

  @Post('partners')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'issuePartnerKey',
    summary: 'Issue a partner key with custom rate limit, burst and duration (admin)',
    description:
      'The key belongs to the account `partner:<partner>`, shared by every key issued with that name; without ' +
      '`partner` the key is an account of its own (`partner:key-<keyId>`). The answer names the account.',
  })
  @ApiCreatedResponse({ description: 'The partner key, shown once', schema: PARTNER_KEY_SCHEMA })
  async issue(@Body() body: PartnerKeyRequest) {
    const network = this.config.X402_LEDGER_NETWORK as LedgerNetwork;
    const { apiKey, record } = await this.keys.issue({
      network,
      tier: 'partner',
      rateLimit: body.rateLimit,
      burst: body.burst,
      durationDays: body.durationDays,
      from: new Date(),
      email: body.email,
      projectName: body.projectName ?? null,
      owner: { kind: 'partner', name: body.partner ?? null },
    });
    return {
      apiKey,
      keyId: record.id,
      tier: record.tier,
      rateLimit: record.rateLimit,
      burst: record.burst,
      expiresAt: record.expiresAt.toISOString(),
      account: record.account,
      durationDays: body.durationDays,
      network,
      message: KEY_SHOWN_ONCE,
    };
  }

  @Delete('admin/keys/:keyId')
  @ApiOperation({
    operationId: 'revokeKey',
    summary: 'Revoke any key by id (admin); the gateway stops accepting it within seconds',
  })
  @ApiOkResponse({ description: 'The key is revoked', schema: REVOKED_KEY_SCHEMA })
  @ApiErrorResponse(404, 'KEY_NOT_FOUND')
  async revoke(@Param('keyId', new ParseUUIDPipe({ errorHttpStatusCode: 400 })) keyId: string) {
    const record = await this.keys.revoke(keyId);
    if (!record) throw new ApiError(404, Code.KEY_NOT_FOUND, `No key has id ${keyId}`);
    return { keyId: record.id, revokedAt: record.revokedAt?.toISOString() };
  }
}
