import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type Channel, type RiskLevel, compareRiskLevels } from '@rp/contracts';
import {
  type Collection,
  type CollectionDefinition,
  DocumentStore,
  DuplicateKeyError,
  type StoredDocument,
} from '@rp/persistence';
import type { ChannelConfigRecord } from './notification-config';

export const CHANNEL_CONFIGS: CollectionDefinition = {
  name: 'notification_channels',
  // Wallet first: the index also serves the per-alert lookup of a wallet's channels (`enabledFor`).
  unique: [{ name: 'notification_channels_wallet', fields: ['walletAddress', 'accountId', 'channel'] }],
};

/**
 * One document (`watch-list`) that every write of a configuration gives a new token: what the monitor's scheduler
 * reads each round, by id, to learn whether to read the watch list again (ADR 032).
 */
export const CHANNEL_CONFIG_MARKS: CollectionDefinition = { name: 'notification_channel_marks' };
const WATCH_LIST_MARK = 'watch-list';

interface WatchListMarkRecord extends StoredDocument {
  token: string;
  changedAt: Date;
}

export type ChannelConfigFields = Omit<
  ChannelConfigRecord,
  'id' | 'accountId' | 'walletAddress' | 'channel' | 'createdAt' | 'updatedAt'
>;

/** Channel configurations in the platform database, one document per (account, wallet, channel). */
@Injectable()
export class NotificationConfigRepository {
  private collection?: Promise<Collection<ChannelConfigRecord>>;
  private markCollection?: Promise<Collection<WatchListMarkRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private configs(): Promise<Collection<ChannelConfigRecord>> {
    this.collection ??= this.store.collection<ChannelConfigRecord>(CHANNEL_CONFIGS);
    return this.collection;
  }

  private marks(): Promise<Collection<WatchListMarkRecord>> {
    this.markCollection ??= this.store.collection<WatchListMarkRecord>(CHANNEL_CONFIG_MARKS);
    return this.markCollection;
  }

  /** A new token in the watch list's mark, after a write that may change the list (the first write creates it). */
  private async watchListChanged(): Promise<void> {
    const marks = await this.marks();
    const set = { token: randomUUID(), changedAt: new Date() };
    if ((await marks.updateOne({ id: WATCH_LIST_MARK }, { set })).matched) return;
    try {
      await marks.updateOne({ id: WATCH_LIST_MARK }, { set }, { upsert: true });
    } catch (error) {
      // Another writer created it meanwhile: a new token over theirs.
      if (!(error instanceof DuplicateKeyError)) throw error;
      await marks.updateOne({ id: WATCH_LIST_MARK }, { set });
    }
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
    await this.watchListChanged();
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
    const removed = await (await this.configs()).delete({ accountId, walletAddress, channel });
    if (removed > 0) await this.watchListChanged();
    return removed;
  }

  /** Every enabled channel of a wallet, across the accounts that registered it. */
  async enabledFor(walletAddress: string): Promise<ChannelConfigRecord[]> {
    return (await this.configs()).find({ walletAddress, enabled: true });
  }

  /**
   * The enabled ones among these configurations of one wallet, by id, in one read (a fan-out job's: its alert's
   * configurations are all its wallet's); one disabled or gone is absent.
   */
  async enabledAmong(walletAddress: string, ids: readonly string[]): Promise<Map<string, ChannelConfigRecord>> {
    const wanted = new Set(ids);
    const found = (await this.enabledFor(walletAddress)).filter((config) => wanted.has(config.id));
    return new Map(found.map((config) => [config.id, config]));
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
    const removed = (await (await this.configs()).delete({ id })) > 0;
    if (removed) await this.watchListChanged();
    return removed;
  }

  async byId(id: string): Promise<ChannelConfigRecord | null> {
    return (await this.configs()).findOne({ id });
  }

  async update(id: string, set: Partial<Omit<ChannelConfigRecord, 'id'>>): Promise<void> {
    await (await this.configs()).updateOne({ id }, { set: { ...set, updatedAt: new Date() } });
    await this.watchListChanged();
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
   * Changes whenever a configuration is added, changed or removed: how many there are (a write this repository did
   * not make, such as a migration's, still moves it when it adds or removes one) and the watch list's mark, which
   * every write here renews. Two reads by key and count, never a scan of the configurations: the monitor asks every
   * round, and reads the whole watch list again only when it moved (ADR 032).
   */
  async changeMark(): Promise<string> {
    const [configs, marks] = await Promise.all([this.configs(), this.marks()]);
    const [count, mark] = await Promise.all([configs.count({}), marks.findOne({ id: WATCH_LIST_MARK })]);
    return `${count}:${mark?.token ?? ''}`;
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
