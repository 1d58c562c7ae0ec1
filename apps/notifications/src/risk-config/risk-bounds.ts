import { Injectable } from '@nestjs/common';
import {
  type RiskConfigLevels,
  type RiskLevelBounds,
  boundsOfRiskConfig,
  cautiousBounds,
  effectiveRiskConfig,
} from '@rp/contracts';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { RiskConfigRepository } from './risk-config.repository';

/** How long the monitor's copy of every wallet's bounds is used before it is read again (about one ledger). */
export const BOUNDS_CACHE_MS = 5_000;

/**
 * The level bounds a wallet's risk is judged by. The risk answer: the caller's account's configuration (one
 * query). The monitor: for each wallet, the most cautious bounds among the accounts that watch it (an enabled
 * channel), as the alert goes to all of them, as the lowest `minRiskLevel` does; read for every wallet at once
 * (two queries: configurations and enabled channels) at most once per BOUNDS_CACHE_MS per process, never per
 * batch or wallet. Wallets without a configuration have no entry (the defaults apply).
 */
@Injectable()
export class RiskBounds {
  private cached?: { at: number; bounds: Promise<Map<string, RiskLevelBounds>> };

  constructor(
    private readonly configs: RiskConfigRepository,
    private readonly channels: NotificationConfigRepository,
  ) {}

  /** The account's levels of the wallet (the defaults when it set none) and their bounds. */
  async ofAccount(
    accountId: string,
    walletAddress: string,
  ): Promise<{ levels: RiskConfigLevels; bounds: RiskLevelBounds }> {
    const record = await this.configs.owned(accountId, walletAddress);
    const { config } = effectiveRiskConfig(record?.settings);
    return { levels: config.levels, bounds: boundsOfRiskConfig(config) };
  }

  /** The bounds of every watched wallet that has a configuration, as of at most BOUNDS_CACHE_MS ago. */
  watched(now = Date.now()): Promise<Map<string, RiskLevelBounds>> {
    if (!this.cached || now - this.cached.at >= BOUNDS_CACHE_MS) {
      const bounds = this.readWatched();
      this.cached = { at: now, bounds };
      bounds.catch(() => {
        if (this.cached?.bounds === bounds) this.cached = undefined;
      });
    }
    return this.cached.bounds;
  }

  private async readWatched(): Promise<Map<string, RiskLevelBounds>> {
    const [configs, watchers] = await Promise.all([this.configs.everyConfig(), this.channels.enabledOwners()]);
    const watching = new Set(watchers.map(({ walletAddress, accountId }) => `${walletAddress}\u0000${accountId}`));
    const byWallet = new Map<string, RiskLevelBounds[]>();
    for (const config of configs) {
      if (!watching.has(`${config.walletAddress}\u0000${config.accountId}`)) continue;
      const list = byWallet.get(config.walletAddress) ?? [];
      list.push(boundsOfRiskConfig(effectiveRiskConfig(config.settings).config));
      byWallet.set(config.walletAddress, list);
    }
    return new Map([...byWallet].map(([wallet, list]) => [wallet, cautiousBounds(list) as RiskLevelBounds]));
  }
}
