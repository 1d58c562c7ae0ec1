import { Injectable } from '@nestjs/common';
import { BlendPoolReader, LedgerRpc, USDC_CONTRACT } from '@rp/ledger';
import { Registry } from 'prom-client';
import { NotificationsSettings } from '../settings/notifications-settings';

/** `CONTRACT_RPC_URL` or `RMS_POOLS` is missing: there is nothing to evaluate against. */
export class RiskNotConfiguredError extends Error {
  override readonly name = 'RiskNotConfiguredError';

  constructor(setting: 'CONTRACT_RPC_URL' | 'RMS_POOLS') {
    super(`${setting} is not set: risk cannot be evaluated`);
  }
}

/** One attempt's deadline and attempts per call: a round or a route answer stays well inside a ledger close. */
const RPC_TIMEOUT_MS = 4000;
const RPC_ATTEMPTS = 2;

/** The ledger as the risk evaluation reaches it: the RPC, the watched pools and a Blend pool reader. */
@Injectable()
export class RmsLedger {
  private readonly client?: LedgerRpc;

  constructor(
    private readonly config: NotificationsSettings,
    registry: Registry,
  ) {
    if (config.CONTRACT_RPC_URL) {
      this.client = new LedgerRpc({
        rpcUrl: config.CONTRACT_RPC_URL,
        timeoutMs: RPC_TIMEOUT_MS,
        maxAttempts: RPC_ATTEMPTS,
        registry,
      });
    }
  }

  rpc(): LedgerRpc {
    if (!this.client) throw new RiskNotConfiguredError('CONTRACT_RPC_URL');
    return this.client;
  }

  /** The assets held to $1: Circle's USDC on either network and `RMS_STABLECOINS`. */
  stablecoins(): ReadonlySet<string> {
    return new Set([...Object.values(USDC_CONTRACT), ...this.config.RMS_STABLECOINS]);
  }

  /** The watched pools (`RMS_POOLS`), without repeats. */
  pools(): readonly string[] {
    const pools = [...new Set(this.config.RMS_POOLS)];
    if (pools.length === 0) throw new RiskNotConfiguredError('RMS_POOLS');
    return pools;
  }

  /** A Blend pool reader on the RPC (the network passphrase is asked once by `LedgerRpc`). */
  async poolReader(): Promise<BlendPoolReader> {
    const rpc = this.rpc();
    return new BlendPoolReader({ ledger: rpc, simulator: rpc, networkPassphrase: await rpc.networkPassphrase() });
  }

  async latestLedger(): Promise<number> {
    return (await this.rpc().getLatestLedger()).sequence;
  }

  /**
   * The newest ledger and its close time (unix seconds), which oracle prices' age is judged against: stellar-rpc 23
   * answers it in `getLatestLedger`; an older RPC through `getLedgers`.
   */
  async latestClose(): Promise<{ sequence: number; closeTime: bigint | undefined }> {
    const latest: { sequence: number; closeTime?: string } = await this.rpc().getLatestLedger();
    if (latest.closeTime !== undefined) return { sequence: latest.sequence, closeTime: BigInt(latest.closeTime) };
    const page = await this.rpc().getLedgers({ startLedger: latest.sequence, pagination: { limit: 1 } });
    const closeTime = page.ledgers[0]?.ledgerCloseTime;
    return { sequence: latest.sequence, closeTime: closeTime === undefined ? undefined : BigInt(closeTime) };
  }
}
