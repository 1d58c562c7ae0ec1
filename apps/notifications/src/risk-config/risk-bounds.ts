import { Injectable } from '@nestjs/common';
import { type RiskConfigLevels, type RiskLevelBounds, boundsOfRiskConfig, effectiveRiskConfig } from '@rp/contracts';
import { RiskConfigRepository } from './risk-config.repository';

/** How long the monitor's copy of every wallet's bounds is used before it is read again (about one ledger). */
export const BOUNDS_CACHE_MS = 5_000;

/**
 * The level bounds a wallet's risk is judged by. The risk answer: the caller's account's configuration (one
 * query). The monitor: the wallet's own account's configuration (`wallet:<G-address>`, the account of keys bought
 * by that wallet: it has proven it controls the wallet), or the defaults. Another account's configuration never
 * decides the monitor's alert, which every channel watching the wallet shares: with a watcher's bounds a stranger
 * could make the owner's alerts later (looser bounds), or start a level's cooldown early (stricter bounds) so that
 * the owner's real alert at that level is held back. Read for every wallet at once (one query) at most once per
 * BOUNDS_CACHE_MS per process, never per batch or wallet. Wallets without a configuration have no entry.
 */
@Injectable()
export class RiskBounds {
  private cached?: { at: number; bounds: Promise<Map<string, RiskLevelBounds>> };

  constructor(private readonly configs: RiskConfigRepository) {}

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
    const owned = (await this.configs.everyConfig()).filter(
      (config) => config.accountId === ownerAccountOf(config.walletAddress),
    );
    return new Map(
      owned.map((config) => [config.walletAddress, boundsOfRiskConfig(effectiveRiskConfig(config.settings).config)]),
    );
  }
}

/** The account of keys bought by the wallet itself (DECISIONS.md, Accounts: a bought key's account is the payer). */
export function ownerAccountOf(walletAddress: string): string {
  return `wallet:${walletAddress}`;
}
