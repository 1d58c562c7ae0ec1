import { randomUUID } from 'node:crypto';
import { type RiskLevel, isAtLeast } from '@rp/contracts';
import type { AccountBalance, LedgerWallet } from '@rp/ledger';
import type { Logger } from 'pino';
import type { Closer } from '../close/closer';
import { type PresignedCache, stalenessOf } from '../close/presigned-cache';
import type { AgentConfig } from '../config/agent.config';
import type { Leases } from '../coordination/leases';
import type { AgentMetrics } from '../metrics/agent-metrics';
import type { OwnerEvents } from '../owner/owner-events';
import type { AgentMode, AgentService } from '../service/agent-service';
import type { RiskSnapshot, SnapshotPosition } from '../store/agent-store';
import type { Subscription } from '../subscription/subscription';

const STROOPS_PER_XLM = 10_000_000;
/** A presigned close is rebuilt when fewer seconds than this remain in its time bounds (or three polls, if more). */
const MIN_REFRESH_MARGIN_S = 60;

export type AgentRole = 'starting' | 'active' | 'standby';

/** What `/status` shows besides the audit records (read from the database when asked). */
export interface AgentState {
  role: AgentRole;
  mode: AgentMode;
  positions: SnapshotPosition[];
  lastPollAt: string | null;
  account: AccountBalance | undefined;
  lowFeeBalance: boolean;
}

/**
 * The loop of one agent instance, the same in every mode (the service chosen at start answers). A heartbeat takes
 * or renews the per-wallet lock every third of `LOCK_LEASE_MS`: the holder is `active` and polls every
 * `POLL_INTERVAL_MS`; any other instance stands by and takes over once the lease has run out. Each poll reads the
 * risk, keeps a presigned close for every pool at `high` or worse, and hands pools at `ACT_AT_RISK_LEVEL` to the
 * closer.
 */
export class Agent {
  readonly instanceId = randomUUID();
  readonly state: AgentState = {
    role: 'starting',
    mode: 'service',
    positions: [],
    lastPollAt: null,
    account: undefined,
    lowFeeBalance: false,
  };
  private heartbeatTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private lastRenewedAt = 0;
  private stopped = false;
  private readonly refreshing = new Set<string>();
  private readonly actLevel: RiskLevel;

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: LedgerWallet,
    private readonly service: AgentService,
    private readonly subscription: Subscription,
    private readonly presigned: PresignedCache,
    private readonly closer: Closer,
    private readonly leases: Leases,
    private readonly metrics: AgentMetrics,
    private readonly logger: Logger,
    /** The owner's events (issue 17 §3): a low fee balance, a standby taking over. */
    private readonly owner: OwnerEvents,
  ) {
    this.actLevel = config.actLevel();
    this.state.mode = service.mode;
  }

  private get lockName(): string {
    return `lock:${this.wallet.address}`;
  }

  start(): void {
    void this.heartbeat();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closer.stop();
    clearTimeout(this.heartbeatTimer);
    clearTimeout(this.pollTimer);
    await this.polling?.catch(() => undefined);
    if (this.state.role === 'active') await this.leases.release(this.lockName, this.instanceId).catch(() => undefined);
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped) return;
    let held = false;
    try {
      held = await this.leases.acquire(this.lockName, this.instanceId, this.config.LOCK_LEASE_MS);
      if (held) this.lastRenewedAt = Date.now();
    } catch (error) {
      // The lock store did not answer: the lease still counts until it would have run out.
      held = this.state.role === 'active' && Date.now() - this.lastRenewedAt < this.config.LOCK_LEASE_MS;
      this.logger.warn({ err: (error as Error).message }, 'could not renew the wallet lock');
    }
    if (held && this.state.role !== 'active') this.becomeActive();
    else if (!held && this.state.role !== 'standby') this.standBy();
    if (!this.stopped) {
      this.heartbeatTimer = setTimeout(() => void this.heartbeat(), Math.max(250, this.config.LOCK_LEASE_MS / 3));
    }
  }

  private becomeActive(): void {
    const tookOver = this.state.role === 'standby';
    this.state.role = 'active';
    this.logger.info({ lock: this.leases.kind, tookOver }, `acting for wallet ${this.wallet.address}`);
    if (tookOver) {
      void this.owner.emit({
        type: 'standby_took_over',
        detail: 'The instance that held the wallet lock stopped renewing it; this one acts for the wallet now.',
      });
    }
    void this.closer.resume().catch((error: unknown) => this.logger.warn({ err: error }, 'could not settle earlier closes'));
    this.schedulePoll(0);
  }

  private standBy(): void {
    const wasActive = this.state.role === 'active';
    this.state.role = 'standby';
    clearTimeout(this.pollTimer);
    this.presigned.clear();
    this.logger.info(
      { lock: this.leases.kind },
      wasActive ? 'lost the wallet lock: standing by' : 'another instance holds the wallet lock: standing by',
    );
  }

  private schedulePoll(delayMs: number): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      const started = Date.now();
      this.polling = this.poll()
        .catch((error: unknown) => this.logger.error({ err: error }, 'poll failed'))
        .finally(() => {
          if (!this.stopped && this.state.role === 'active') {
            this.schedulePoll(Math.max(0, this.config.POLL_INTERVAL_MS - (Date.now() - started)));
          }
        });
    }, delayMs);
  }

  /** One evaluation: account and subscription, risk, presigned closes, decisions. */
  async poll(): Promise<void> {
    // The first poll waits for the key (bought if need be); later checks run beside the polls.
    const check = this.subscription.checkIfDue();
    await Promise.all([this.readAccount(), this.state.lastPollAt === null ? check : undefined]);
    const reading = await this.service.read();
    if (reading.mode !== this.state.mode) {
      this.logger.info({ from: this.state.mode, to: reading.mode }, `mode: ${reading.mode}`);
      this.state.mode = reading.mode;
    }
    this.state.positions = reading.positions;
    this.state.lastPollAt = new Date().toISOString();
    this.metrics.poll(reading.mode);

    const endangered = reading.positions.filter((position) => position.auction === true || isAtLeast(position.riskLevel, 'high'));
    this.presigned.retain(new Set(endangered.map((position) => position.poolAddress)));
    await Promise.all(
      endangered.map(async (position) => {
        const pool = position.poolAddress;
        if (this.closer.busy(pool)) return;
        const prices = await reading.prices(pool);
        // An auction against the wallet is acted on whatever the level: the rescue goes out the ledger it is seen.
        if (position.auction === true || isAtLeast(position.riskLevel, this.actLevel)) {
          const snapshot: RiskSnapshot = {
            positions: reading.positions,
            prices: prices.prices,
            ledger: prices.ledger,
            source: reading.source,
          };
          await this.closer.act({
            poolAddress: pool,
            snapshot,
            accountSequence: this.state.account?.sequence,
            ...(position.auction === true && { rescue: true }),
          });
        } else {
          await this.refresh(position, prices.prices);
        }
      }),
    );
    this.updatePresignedMetrics();
  }

  /** Builds and signs the pool's close again when it is missing or stale. */
  private async refresh(position: SnapshotPosition, prices: Record<string, string>): Promise<void> {
    const pool = position.poolAddress;
    // A close bidding less than the network now asks (getFeeStats) is signed again at the current fee.
    const networkFee = await this.service.networkFee();
    if (this.refreshing.has(pool)) return;
    const entry = this.presigned.get(pool);
    const stale = stalenessOf(entry, {
      accountSequence: this.state.account?.sequence,
      healthFactor: position.healthFactor,
      prices,
      nowSeconds: Date.now() / 1000,
      marginSeconds: Math.max(MIN_REFRESH_MARGIN_S, (3 * this.config.POLL_INTERVAL_MS) / 1000),
      networkFee,
    });
    if (!stale) return;
    this.refreshing.add(pool);
    try {
      const { signed, builtBy, rule } = await this.closer.buildSigned(pool, this.state.account?.sequence);
      this.presigned.set({
        poolAddress: pool,
        signed,
        builtBy,
        rule,
        builtAt: Date.now(),
        healthFactor: position.healthFactor,
        prices,
      });
      this.logger.info({ pool, reason: stale, builtBy, txHash: signed.hash, validUntil: signed.validUntil }, 'presigned close ready');
    } catch (error) {
      this.logger.warn({ pool, err: (error as Error).message }, 'could not presign the close');
    } finally {
      this.refreshing.delete(pool);
    }
  }

  private async readAccount(): Promise<void> {
    try {
      const account = await this.service.account();
      this.state.account = account;
      const low = (account ? Number(account.nativeBalance) : 0) < this.config.LOW_FEE_BALANCE_XLM * STROOPS_PER_XLM;
      if (low !== this.state.lowFeeBalance || this.state.lastPollAt === null) {
        if (low) {
          this.logger.warn(
            { nativeBalance: xlm(account?.nativeBalance ?? 0n), threshold: this.config.LOW_FEE_BALANCE_XLM },
            'low fee balance: top up the wallet with XLM so closes can pay their fees',
          );
          if (!this.state.lowFeeBalance) {
            void this.owner.emit({
              type: 'fee_balance_low',
              nativeBalance: xlm(account?.nativeBalance ?? 0n),
              detail: `Below the ${this.config.LOW_FEE_BALANCE_XLM} XLM the agent keeps for close fees.`,
            });
          }
        } else if (this.state.lowFeeBalance) {
          this.logger.info({ nativeBalance: xlm(account?.nativeBalance ?? 0n) }, 'fee balance no longer low');
        }
      }
      this.state.lowFeeBalance = low;
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'could not read the wallet account');
    }
  }

  private updatePresignedMetrics(): void {
    const entries = this.presigned.all();
    this.metrics.presignedEntries = entries.length;
    this.metrics.presignedAgeSeconds = entries.length
      ? (Date.now() - Math.min(...entries.map((entry) => entry.builtAt))) / 1000
      : 0;
  }
}

export const xlm = (stroops: bigint): string => {
  const whole = stroops / 10_000_000n;
  const fraction = (stroops % 10_000_000n).toString().padStart(7, '0');
  return `${whole}.${fraction}`;
};
