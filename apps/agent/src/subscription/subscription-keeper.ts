import { caip2Of, type LedgerWallet, PurchaseError, purchaseKey } from '@rp/ledger';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/agent.config';
import type { LedgerView } from '../ledger/ledger-view';
import type { MockService } from '../mock/mock-service';
import type { AgentStore } from '../store/agent-store';
import { KeyVault } from './key-vault';

/** Renew when the key expires within this long (DECISIONS.md, Agent). */
export const RENEW_BEFORE_MS = 3 * 86_400_000;
/** After a failed purchase, try again this soon rather than at the next daily check. */
const RETRY_AFTER_FAILURE_MS = 15_000;
/** A refused key is bought again at most this often (a gateway refusing every key must not drain the wallet). */
const REBUY_AFTER_REFUSAL_MS = 10 * 60_000;

export interface SubscriptionView {
  active: boolean;
  tier: string | null;
  expiresAt: string | null;
  /** Why the agent has no valid key or could not renew it (e.g. not enough USDC); absent when all is well. */
  error?: string;
}

/**
 * The agent's own API key: checked at start and every `SUBSCRIPTION_CHECK_INTERVAL_MS`; bought with the direct x402
 * flow from the agent's wallet when there is none or it expires within three days; kept in the database sealed with
 * a key derived from the mnemonic. A failed purchase (not enough USDC, service down) is reported in `/status` and
 * the log, and protection goes on from the ledger (degraded mode).
 */
export class SubscriptionKeeper {
  private key?: { apiKey: string; tier: string; expiresAt: number };
  private error?: string;
  private nextCheckAt = 0;
  private lastRefusalCheckAt = -Infinity;
  private holdPurchasesUntil = 0;
  private checking?: Promise<void>;
  private readonly vault: KeyVault;

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: LedgerWallet,
    private readonly store: AgentStore,
    private readonly ledger: LedgerView,
    private readonly logger: Logger,
    private readonly mock?: MockService,
    private readonly now: () => number = Date.now,
  ) {
    this.vault = new KeyVault(config.LEDGER_MNEMONIC, wallet.address);
  }

  /** A key that has not expired, or undefined. */
  apiKey(): string | undefined {
    return this.key && this.key.expiresAt > this.now() ? this.key.apiKey : undefined;
  }

  view(): SubscriptionView {
    if (this.mock) return this.mock.subscription();
    const active = this.apiKey() !== undefined;
    return {
      active,
      tier: this.key?.tier ?? null,
      expiresAt: this.key ? new Date(this.key.expiresAt).toISOString() : null,
      ...(this.error && { error: this.error }),
    };
  }

  /** Checks when due (or when `force`d, e.g. after the service refused the key); one check at a time. */
  async checkIfDue(force = false): Promise<void> {
    if (this.mock || (!force && this.now() < this.nextCheckAt)) return;
    this.checking ??= this.check().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** The service refused the key (401): treat it as lapsed and check again now. */
  async keyRejected(): Promise<void> {
    if (this.key) this.key = { ...this.key, expiresAt: Math.min(this.key.expiresAt, this.now()) };
    const now = this.now();
    if (now - this.lastRefusalCheckAt < REBUY_AFTER_REFUSAL_MS) {
      // Refused again soon after a new key: wait (degraded meanwhile) rather than pay again and again.
      this.holdPurchasesUntil = this.lastRefusalCheckAt + REBUY_AFTER_REFUSAL_MS;
      this.nextCheckAt = this.holdPurchasesUntil;
      this.setError('the service refused the API key again soon after it was bought; protecting from the ledger');
      return;
    }
    this.lastRefusalCheckAt = now;
    await this.checkIfDue(true);
  }

  private async check(): Promise<void> {
    this.nextCheckAt = this.now() + this.config.SUBSCRIPTION_CHECK_INTERVAL_MS;
    if (!this.key) await this.load();
    if (this.key && this.key.expiresAt - this.now() > RENEW_BEFORE_MS) {
      this.setError(undefined);
      return;
    }
    await this.buy();
  }

  private async load(): Promise<void> {
    const stored = await this.store.keys.findOne({ id: this.wallet.address });
    if (!stored) return;
    try {
      this.key = { apiKey: this.vault.open(stored.sealedKey), tier: stored.tier, expiresAt: Date.parse(stored.expiresAt) };
    } catch {
      this.logger.warn('the stored API key was sealed under another mnemonic; buying a new one');
    }
  }

  private async buy(): Promise<void> {
    if (this.now() < this.holdPurchasesUntil) {
      this.nextCheckAt = this.holdPurchasesUntil;
      return;
    }
    const email = this.config.SERVICE_EMAIL ?? `agent-${this.wallet.address.slice(0, 12).toLowerCase()}@example.com`;
    this.logger.info({ email, renewing: this.key !== undefined }, 'buying an API key with the direct x402 flow');
    try {
      const network = await this.ledger.network();
      const { grant, txHash } = await purchaseKey({
        gatewayUrl: this.config.SERVICE_BASE_URL,
        wallet: this.wallet,
        email,
        projectName: this.config.SERVICE_PROJECT_NAME ?? 'risk agent',
        rpcUrl: this.config.CONTRACT_RPC_URL,
        network: caip2Of(network) as 'stellar:testnet' | 'stellar:pubnet',
        ledger: this.ledger.rpc,
      });
      const expiresAt = Date.parse(grant.expiresAt);
      await this.store.keys.updateOne(
        { id: this.wallet.address },
        {
          set: {
            sealedKey: this.vault.seal(grant.apiKey),
            tier: grant.tier,
            rateLimit: grant.rateLimit,
            expiresAt: grant.expiresAt,
            purchasedAt: new Date(this.now()).toISOString(),
            txHash,
          },
        },
        { upsert: true },
      );
      this.key = { apiKey: grant.apiKey, tier: grant.tier, expiresAt };
      this.setError(undefined);
      this.logger.info({ tier: grant.tier, expiresAt: grant.expiresAt, txHash }, 'API key bought');
    } catch (error) {
      this.nextCheckAt = this.now() + Math.min(RETRY_AFTER_FAILURE_MS, this.config.SUBSCRIPTION_CHECK_INTERVAL_MS);
      const message =
        error instanceof PurchaseError && error.code === 'INSUFFICIENT_FUNDS'
          ? `not enough USDC to buy an API key: ${error.message}; protecting from the ledger meanwhile`
          : `could not buy an API key: ${(error as Error).message}`;
      this.setError(message);
    }
  }

  /** Logs a problem once when it appears and once when it is gone, not at every retry. */
  private setError(message: string | undefined): void {
    if (message === this.error) return;
    if (message) this.logger.warn({ subscription: 'problem' }, message);
    else if (this.error) this.logger.info({ subscription: 'ok' }, 'subscription problem resolved');
    this.error = message;
  }
}
