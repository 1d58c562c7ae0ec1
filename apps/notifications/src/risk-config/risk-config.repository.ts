import { Injectable } from '@nestjs/common';
import type { RiskConfigInput } from '@rp/contracts';
import { type Collection, type CollectionDefinition, DocumentStore } from '@rp/persistence';

/** One wallet's risk configuration as one account set it: only the fields it set (the others take the defaults). */
export interface RiskConfigRecord {
  id: string;
  accountId: string;
  walletAddress: string;
  settings: RiskConfigInput;
  createdAt: Date;
  updatedAt: Date;
}

export const RISK_CONFIGS: CollectionDefinition = {
  name: 'risk_configs',
  unique: [{ name: 'risk_configs_wallet', fields: ['walletAddress', 'accountId'] }],
};

/** Risk configurations in the platform database (any of the three drivers), one document per (account, wallet). */
@Injectable()
export class RiskConfigRepository {
  private collection?: Promise<Collection<RiskConfigRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private configs(): Promise<Collection<RiskConfigRecord>> {
    this.collection ??= this.store.collection<RiskConfigRecord>(RISK_CONFIGS);
    return this.collection;
  }

  /** Sets (replaces) an account's configuration of a wallet. */
  async put(accountId: string, walletAddress: string, settings: RiskConfigInput, now = new Date()) {
    const result = await (
      await this.configs()
    ).updateOne(
      { accountId, walletAddress },
      { set: { settings, updatedAt: now }, setOnInsert: { createdAt: now } },
      { upsert: true },
    );
    return result.document as RiskConfigRecord;
  }

  /** Removes an account's configuration of a wallet (its levels are the defaults again). */
  async remove(accountId: string, walletAddress: string): Promise<void> {
    await (await this.configs()).delete({ accountId, walletAddress });
  }

  async owned(accountId: string, walletAddress: string): Promise<RiskConfigRecord | null> {
    return (await this.configs()).findOne({ accountId, walletAddress });
  }

  /** The wallets an account set a risk configuration for. */
  async walletsOf(accountId: string): Promise<string[]> {
    return (await (await this.configs()).find({ accountId })).map((config) => config.walletAddress);
  }

  /** Every configuration, in one query (the monitor's cache). */
  async everyConfig(): Promise<RiskConfigRecord[]> {
    return (await this.configs()).find({});
  }
}
