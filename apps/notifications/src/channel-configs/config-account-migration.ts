import { Injectable, Logger } from '@nestjs/common';
import { HttpClient, type ProvenOwners, StartupAccountMigration, provenOwners } from '@rp/platform';
import { NotificationsSettings } from '../settings/notifications-settings';
import type { ChannelConfigRecord } from './notification-config';
import { NotificationConfigRepository } from './notification-config.repository';

const EMAIL_OWNER = 'email:';
const KEY_OWNER = 'key:';

/** Where a configuration nobody can prove goes: no account ever compares equal to it (ADR 015). */
export const UNPROVEN_OWNER = 'unproven:';

/**
 * Gives configurations registered before accounts existed the account of the key that registered them, on every
 * start of the API role (idempotent; several replicas may run it at once). Those records were owned by
 * `email:<the key's email>` or `key:<keyId>`; the subscription service says which accounts hold keys with that
 * email or that id. One account proves the owner and the record moves to it. Otherwise (an email that keys of
 * several accounts were bought with, or no key at all) nothing proves who registered it: the record is parked
 * under `unproven:<old owner>`, which no account can read, change, delete or test, and it keeps delivering alerts to
 * the destination it had (a warning of liquidation never stops because of a migration); its owner registers the
 * channel again. Until the subscription service answers, the old records belong to no account and keep delivering.
 */
@Injectable()
export class ConfigAccountMigration extends StartupAccountMigration {
  private readonly logger = new Logger(ConfigAccountMigration.name);

  constructor(
    private readonly repository: NotificationConfigRepository,
    private readonly config: NotificationsSettings,
    http: HttpClient,
  ) {
    super(config, http);
  }

  /** The API role serves the configurations; the workers and the monitor only read them. */
  protected override runsHere(): boolean {
    return this.config.runs('api');
  }

  async migrate(): Promise<void> {
    const legacy = (await this.repository.everyRecord())
      .filter((record) => isLegacyOwner(record.accountId))
      .sort((a, b) => new Date(a.updatedAt).getTime() - new Date(b.updatedAt).getTime());
    if (legacy.length === 0) return;
    const owners = new Set(legacy.map((record) => record.accountId));
    const emails = [...owners].filter((o) => o.startsWith(EMAIL_OWNER)).map((o) => o.slice(EMAIL_OWNER.length));
    const keyIds = [...owners].filter((o) => o.startsWith(KEY_OWNER)).map((o) => o.slice(KEY_OWNER.length));
    const proven = provenOwners(await this.directory.owners(keyIds, emails));
    const tally = { moved: 0, parked: 0, replaced: 0 };
    for (const record of legacy) {
      const account = accountProvenFor(record.accountId, proven);
      if (account === record.accountId) continue;
      const outcome = await this.move(record, account ?? `${UNPROVEN_OWNER}${record.accountId}`);
      if (outcome === 'gone') continue;
      if (!account) tally.parked += 1;
      else if (outcome === 'replaced') tally.replaced += 1;
      else tally.moved += 1;
    }
    this.logger.log(tally, 'configurations made before accounts given the account of the key that made them');
    if (tally.parked > 0) {
      this.logger.warn(
        { parked: tally.parked },
        'configurations whose owner nothing proves were parked under no account (ADR 015); they keep delivering',
      );
    }
  }

  /**
   * Moves a record to its account. When the account has this wallet's channel already (two emails of one wallet,
   * or a registration made since), the newer of the two stays, as a registration replaces the one before.
   */
  private async move(record: ChannelConfigRecord, to: string): Promise<'moved' | 'gone' | 'replaced'> {
    const first = await this.repository.reassign(record.id, record.accountId, to);
    if (first !== 'taken') return first;
    const held = await this.repository.owned(to, record.walletAddress, record.channel);
    if (held && new Date(held.updatedAt).getTime() > new Date(record.updatedAt).getTime()) {
      await this.repository.removeById(record.id);
      return 'replaced';
    }
    if (held) await this.repository.removeById(held.id);
    const second = await this.repository.reassign(record.id, record.accountId, to);
    return second === 'moved' ? 'replaced' : 'gone';
  }
}

function isLegacyOwner(accountId: string): boolean {
  return accountId.startsWith(EMAIL_OWNER) || accountId.startsWith(KEY_OWNER);
}

function accountProvenFor(owner: string, proven: ProvenOwners): string | undefined {
  if (owner.startsWith(EMAIL_OWNER)) return proven.emails.get(owner.slice(EMAIL_OWNER.length));
  return proven.keys.get(owner.slice(KEY_OWNER.length));
}
