import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { type AccountOwners, AccountOwnersRequest } from '@rp/contracts';
import { KeyRepository } from './key.repository';

/**
 * For the other services only (outside `/api/v1`, so the gateway never forwards it; behind the internal token like
 * every route of a service when `INTERNAL_TOKEN` is set): the accounts of keys and of emails, so that records made
 * before accounts existed take the account of the key that made them (ADR 015). It answers accounts only, never a
 * key, a hash or an email that was not asked.
 */
@Controller('internal/accounts')
export class AccountOwnersController {
  constructor(private readonly keys: KeyRepository) {}

  @Post('owners')
  @HttpCode(200)
  async owners(@Body() body: AccountOwnersRequest): Promise<AccountOwners> {
    const keys = await Promise.all(
      [...new Set(body.keyIds)].map(async (keyId) => ({
        keyId,
        account: (await this.keys.findById(keyId))?.account ?? null,
      })),
    );
    const emails = await Promise.all(
      [...new Set(body.emails.map((email) => email.toLowerCase()))].map(async (email) => ({
        email,
        accounts: await this.keys.accountsWithEmail(email),
      })),
    );
    return { keys, emails };
  }
}
