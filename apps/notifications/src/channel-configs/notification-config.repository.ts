import { Injectable } from '@nestjs/common';
import { type Channel, type RiskLevel, compareRiskLevels } from '@rp/contracts';
import { type Collection, type CollectionDefinition, DocumentStore, DuplicateKeyError } from '@rp/persistence';
import type { ChannelConfigRecord } from './notification-config';

export const CHANNEL_CONFIGS: CollectionDefinition = {
  name: 'notification_channels',
  // Wallet first: the index also serves the per-alert lookup of a wallet's channels (`enabledFor`).
  unique: [{ name: 'notification_channels_wallet', fields: ['walletAddress', 'accountId', 'channel'] }],
};

export type ChannelConfigFields = Omit<
  ChannelConfigRecord,
  'id' | 'accountId' | 'walletAddress' | 'channel' | 'createdAt' | 'updatedAt'
>;

/** Channel configurations in the platform database, one document per (account, wallet, channel). */
@Injectable()
export class NotificationConfigRepository {
  private collection?: Promise<Collection<ChannelConfigRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private configs(): Promise<Collection<ChannelConfigRecord>> {
    this.collection ??= this.store.collection<ChannelConfigRecord>(CHANNEL_CONFIGS);
    return this.collection;
  }

  /** Registers (or replaces) one channel of a wallet for an account. */
  async upsert(
    accountId: string,
    walletAddress: string,
    channel: Channel,
    fields: ChannelConfigFields,
    now = new Date(),
  ): Promise<ChannelConfigRecord> {
    const configs = await this.configs();
    const unset = (['chatId', 'botToken', 'webhookUrl', 'email', 'destinationKey', 'disabledReason'] as const).filter(
      (key) => fields[key] === undefined,
    );
    const result = await configs.updateOne(
      { accountId, walletAddress, channel },
      { set: { ...stripUndefined(fields), updatedAt: now }, setOnInsert: { createdAt: now }, unset },
      { upsert: true },
    );
    return result.document as ChannelConfigRecord;
  }

  async forAccount(accountId: string, walletAddress: string): Promise<ChannelConfigRecord[]> {
    return (await this.configs()).find({ accountId, walletAddress });
  }

  /** The wallets an account registered any channel for. */
  async walletsOf(accountId: string): Promise<string[]> {
    return [...new Set((await (await this.configs()).find({ accountId })).map((config) => config.walletAddress))];
  }

  async remove(accountId: string, walletAddress: string, channel: Channel): Promise<number> {
    return (await this.configs()).delete({ accountId, walletAddress, channel });
  }

  /** Every enabled channel of a wallet, across the accounts that registered it. */
  async enabledFor(walletAddress: string): Promise<ChannelConfigRecord[]> {
    return (await this.configs()).find({ walletAddress, enabled: true });
  }

  /** Every configuration (the start-up scan for records made before accounts existed). */
  async everyRecord(): Promise<ChannelConfigRecord[]> {
    return (await this.configs()).find({});
  }

  async owned(accountId: string, walletAddress: string, channel: Channel): Promise<ChannelConfigRecord | null> {
    return (await this.configs()).findOne({ accountId, walletAddress, channel });
  }

  /**
   * Moves a configuration from one owner to another if it still has the first: 'moved', 'gone' (it changed owner
   * or was deleted meanwhile), or 'taken' when the new owner has this wallet's channel already.
   */
  async reassign(id: string, from: string, to: string): Promise<'moved' | 'gone' | 'taken'> {
    try {
      const result = await (await this.configs()).updateOne({ id, accountId: from }, { set: { accountId: to } });
      return result.matched ? 'moved' : 'gone';
    } catch (error) {
      if (error instanceof DuplicateKeyError) return 'taken';
      throw error;
    }
  }

  async removeById(id: string): Promise<boolean> {
    return (await (await this.configs()).delete({ id })) > 0;
  }

  async byId(id: string): Promise<ChannelConfigRecord | null> {
    return (await this.configs()).findOne({ id });
  }

  async update(id: string, set: Partial<Omit<ChannelConfigRecord, 'id'>>): Promise<void> {
    await (await this.configs()).updateOne({ id }, { set: { ...set, updatedAt: new Date() } });
  }

  /** The (wallet, account) pairs with at least one enabled channel, repeated per channel. */
  async enabledOwners(): Promise<Array<Pick<ChannelConfigRecord, 'walletAddress' | 'accountId'>>> {
    const enabled = await (await this.configs()).find({ enabled: true });
    return enabled.map(({ walletAddress, accountId }) => ({ walletAddress, accountId }));
  }

  /** Every wallet with at least one enabled channel (the monitor's work list). */
  async watchedWallets(): Promise<string[]> {
    const enabled = await (await this.configs()).find({ enabled: true });
    return [...new Set(enabled.map((config) => config.walletAddress))];
  }

  /**
   * Changes whenever a configuration is added, changed or removed (how many there are and the latest `updatedAt`,
   * which every write sets): the monitor reads the whole watch list again only then.
   */
  async changeMark(): Promise<string> {
    const configs = await this.configs();
    const [count, latest] = await Promise.all([
      configs.count({}),
      configs.findOne({}, { sort: { field: 'updatedAt', direction: 'desc' } }),
    ]);
    return `${count}:${latest ? new Date(latest.updatedAt).getTime() : 0}:${latest?.id ?? ''}`;
  }

  /** Every watched wallet with the lowest `minRiskLevel` among its enabled channels (the monitor's threshold). */
  async watchList(): Promise<WatchedWallet[]> {
    const enabled = await (await this.configs()).find({ enabled: true });
    const lowest = new Map<string, RiskLevel>();
    for (const { walletAddress, minRiskLevel } of enabled) {
      const current = lowest.get(walletAddress);
      if (current === undefined || compareRiskLevels(minRiskLevel, current) < 0) {
        lowest.set(walletAddress, minRiskLevel);
      }
    }
    return [...lowest].map(([walletAddress, minRiskLevel]) => ({ walletAddress, minRiskLevel }));
  }
}

export interface WatchedWallet {
  readonly walletAddress: string;
  readonly minRiskLevel: RiskLevel;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
