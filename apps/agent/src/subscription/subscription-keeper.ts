import type { SubscriptionGrant } from '@rp/contracts';
import {
  type CollectOutcome,
  KeyPurchaseClient,
  type LedgerWallet,
  PurchaseError,
  type PurchaseLimits,
  type PurchaseRefusal,
  type SignedPayment,
  caip2Of,
  purchaseLimits,
} from '@rp/ledger';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/agent.config';
import type { LedgerView } from '../ledger/ledger-view';
import type { AgentMetrics } from '../metrics/agent-metrics';
import { NO_OWNER_EVENTS, type OwnerEvents } from '../owner/owner-events';
import type { AgentStore, StoredPayment } from '../store/agent-store';
import { KeptPayments } from './kept-payments';
import { KeyVault } from './key-vault';
import type { Subscription, SubscriptionView } from './subscription';

/** Renew when the key expires within this long (DECISIONS.md, Agent). */
export const RENEW_BEFORE_MS = 3 * 86_400_000;
/** After a failed purchase, try again this soon rather than at the next daily check. */
const RETRY_AFTER_FAILURE_MS = 15_000;
/** A refused key is bought again at most this often (a gateway refusing every key must not drain the wallet). */
const REBUY_AFTER_REFUSAL_MS = 10 * 60_000;
/** An offer the limits refused is asked for again this often (the service may come back to its price). */
const ASK_AGAIN_AFTER_REFUSAL_MS = 5 * 60_000;
/** The spend cap's window. */
const SPEND_WINDOW_MS = 30 * 86_400_000;
/** Nominal ledger close time, to wait for a refused payment's authorization to expire. */
const SECONDS_PER_LEDGER = 5;

export interface SubscriptionKeeperOptions {
  metrics?: AgentMetrics;
  /** Where `subscription_lapsed`, `subscription_renewed` and refused payments are told. */
  owner?: OwnerEvents;
  now?: () => number;
}

/**
 * The agent's own API key: checked at start and every `SUBSCRIPTION_CHECK_INTERVAL_MS`; bought with the direct x402
 * flow from the agent's wallet when there is none or it expires within three days; kept in the database sealed with
 * a key derived from the mnemonic. Every 402 offer passes the purchase limits before anything is signed; a signed
 * payment is kept (sealed) and sent again, identical, until it is collected or its authorization expires, and no
 * second one is signed meanwhile. A failed or refused purchase is reported in `/status` and the log, and protection
 * goes on from the ledger (degraded mode).
 */
export class SubscriptionKeeper implements Subscription {
  private key?: { apiKey: string; tier: string; expiresAt: number };
  private error?: string;
  private refusal?: SubscriptionView['refusal'];
  private nextCheckAt = 0;
  private lastRefusalCheckAt = -Infinity;
  private holdPurchasesUntil = 0;
  private checking?: Promise<void>;
  private pendingLogged?: string;
  private readonly vault: KeyVault;
  private readonly payments: KeptPayments;
  private readonly owner: OwnerEvents;
  private readonly now: () => number;

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: LedgerWallet,
    private readonly store: AgentStore,
    private readonly ledger: LedgerView,
    private readonly logger: Logger,
    private readonly options: SubscriptionKeeperOptions = {},
  ) {
    this.vault = new KeyVault(config.LEDGER_MNEMONIC, wallet.address);
    this.payments = new KeptPayments(store, wallet.address, config.LEDGER_MNEMONIC);
    this.owner = options.owner ?? NO_OWNER_EVENTS;
    this.now = options.now ?? Date.now;
  }

  /** A key that has not expired, or undefined. */
  apiKey(): string | undefined {
    return this.key && this.key.expiresAt > this.now() ? this.key.apiKey : undefined;
  }

  view(): SubscriptionView {
    const active = this.apiKey() !== undefined;
    return {
      active,
      tier: this.key?.tier ?? null,
      expiresAt: this.key ? new Date(this.key.expiresAt).toISOString() : null,
      ...(this.error && { error: this.error }),
      ...(this.refusal && { refusal: this.refusal }),
    };
  }

  /** Checks when due (or when `force`d, e.g. after the service refused the key); one check at a time. */
  async checkIfDue(force = false): Promise<void> {
    if (!force && this.now() < this.nextCheckAt) return;
    this.checking ??= this.check().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** The service refused the key (401): treat it as lapsed and check again now. */
  async keyRejected(): Promise<void> {
    if (this.apiKey() !== undefined) await this.lapsed('key_refused', 'the service refused the API key (401)');
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
    if (this.key && this.key.expiresAt <= this.now()) await this.lapsed('expired', 'the API key expired');
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

  /** A payment kept from before is sent again (or waited out); otherwise a new offer is read, checked and signed. */
  private async buy(): Promise<void> {
    if (this.now() < this.holdPurchasesUntil) {
      this.nextCheckAt = this.holdPurchasesUntil;
      return;
    }
    const unsettled = await this.payments.unsettled();
    if (unsettled.length === 0) {
      this.logger.info({ email: this.email(), renewing: this.key !== undefined }, 'buying an API key with the direct x402 flow');
    }
    try {
      const network = caip2Of(await this.ledger.network()) as 'stellar:testnet' | 'stellar:pubnet';
      const client = new KeyPurchaseClient({
        gatewayUrl: this.config.SERVICE_BASE_URL,
        wallet: this.wallet,
        email: this.email(),
        projectName: this.config.SERVICE_PROJECT_NAME ?? 'risk agent',
        rpcUrl: this.config.CONTRACT_RPC_URL,
        network,
        ledger: this.ledger.rpc,
      });
      if (unsettled.length > 0 && (await this.settleKept(client, unsettled))) return;
      const spent = await this.payments.spentSince(this.now() - SPEND_WINDOW_MS);
      const chosen = await client.offer(this.limits(network), spent);
      this.refusal = undefined;
      const payment = await client.sign(chosen);
      const record = await this.payments.keep(payment, this.now());
      this.options.metrics?.payment('signed');
      this.logger.info(
        { payment: payment.id.slice(0, 16), amount: payment.amount, payTo: payment.payTo, authExpiresLedger: payment.authExpiresLedger },
        'payment for the API key signed and kept; it is sent again as it is until it is collected or expires',
      );
      await this.collect(client, payment, record);
    } catch (error) {
      await this.failed(error);
    }
  }

  /**
   * The payments signed before and not collected: an expired one is done with; a refused one that is still valid
   * is waited out (no second payment while it could settle); a live one is sent again. False when none is left.
   */
  private async settleKept(client: KeyPurchaseClient, unsettled: StoredPayment[]): Promise<boolean> {
    const latest = await this.ledger.rpc.getLatestLedger().then(
      (answer) => answer.sequence,
      () => undefined,
    );
    for (const record of unsettled) {
      if (latest !== undefined && latest > record.authExpiresLedger) {
        await this.payments.mark(record.id, 'expired');
        this.options.metrics?.payment('expired');
        this.logger.info({ payment: record.id.slice(0, 16) }, 'a payment expired without a key: it can no longer settle');
        continue;
      }
      if (record.state === 'refused') {
        const ledgersLeft = latest === undefined ? 1 : record.authExpiresLedger - latest + 1;
        this.nextCheckAt = this.now() + Math.max(RETRY_AFTER_FAILURE_MS, ledgersLeft * SECONDS_PER_LEDGER * 1000);
        return true;
      }
      let payment: SignedPayment;
      try {
        payment = this.payments.open(record);
      } catch {
        // Sealed under another mnemonic: not this wallet's to send.
        await this.payments.mark(record.id, 'expired', { lastAnswer: 'sealed under another mnemonic' });
        continue;
      }
      await this.collect(client, payment, record);
      return true;
    }
    return false;
  }

  /** Sends the signed payment and acts on the answer. */
  private async collect(client: KeyPurchaseClient, payment: SignedPayment, record: StoredPayment): Promise<void> {
    const outcome: CollectOutcome = await client.collect(payment);
    switch (outcome.kind) {
      case 'granted':
        await this.payments.mark(record.id, 'granted', { txHash: outcome.txHash, lastAnswer: '200' });
        this.options.metrics?.payment('granted');
        return this.granted(outcome.grant, outcome.txHash);
      case 'pending':
        await this.payments.answered(record.id, outcome.detail);
        this.nextCheckAt = this.now() + outcome.retryAfterSeconds * 1000;
        if (this.pendingLogged !== record.id) {
          this.logger.info({ payment: record.id.slice(0, 16), answer: outcome.detail }, 'the payment is settling: the same payment is sent again');
          this.pendingLogged = record.id;
        }
        return;
      case 'unreachable':
        await this.payments.answered(record.id, outcome.detail);
        this.nextCheckAt = this.now() + Math.min(RETRY_AFTER_FAILURE_MS, this.config.SUBSCRIPTION_CHECK_INTERVAL_MS);
        return this.setError(`could not buy an API key: ${outcome.detail}; the same payment is sent again`);
      case 'refused':
        await this.payments.mark(record.id, 'refused', { lastAnswer: outcome.detail });
        this.options.metrics?.payment('refused');
        this.nextCheckAt = this.now() + RETRY_AFTER_FAILURE_MS;
        return this.setError(
          `the service did not take the payment (${outcome.detail}); no new one is signed before it expires`,
        );
    }
  }

  private async granted(grant: SubscriptionGrant, txHash: string): Promise<void> {
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
        unset: ['lapsedAt'],
      },
      { upsert: true },
    );
    this.key = { apiKey: grant.apiKey, tier: grant.tier, expiresAt };
    this.setError(undefined);
    this.logger.info({ tier: grant.tier, expiresAt: grant.expiresAt, txHash }, 'API key bought');
    await this.owner.emit({
      type: 'subscription_renewed',
      expiresAt: grant.expiresAt,
      ...(/^[0-9a-f]{64}$/.test(txHash) && { txHash }),
      detail: `API key bought (${grant.tier}), valid until ${grant.expiresAt}`,
    });
  }

  private async failed(error: unknown): Promise<void> {
    this.nextCheckAt = this.now() + Math.min(RETRY_AFTER_FAILURE_MS, this.config.SUBSCRIPTION_CHECK_INTERVAL_MS);
    if (error instanceof PurchaseError && error.code === 'LIMIT_REFUSED' && error.refusal) {
      return this.refused(error.refusal);
    }
    this.setError(
      error instanceof PurchaseError && error.code === 'INSUFFICIENT_FUNDS'
        ? `not enough USDC to buy an API key: ${error.message}; protecting from the ledger meanwhile`
        : `could not buy an API key: ${(error as Error).message}`,
    );
  }

  /** An offer outside the limits: nothing signed; logged once, counted, shown, told to the owner once. */
  private async refused(refusal: PurchaseRefusal): Promise<void> {
    this.options.metrics?.paymentRefused(refusal.reason);
    const repeated = this.refusal?.reason === refusal.reason && this.refusal.message === refusal.message;
    this.refusal = { reason: refusal.reason, message: refusal.message, at: new Date(this.now()).toISOString() };
    this.nextCheckAt = this.now() + Math.min(ASK_AGAIN_AFTER_REFUSAL_MS, this.config.SUBSCRIPTION_CHECK_INTERVAL_MS);
    this.setError(`payment refused (${refusal.reason}): ${refusal.message}; nothing was signed, protecting from the ledger`);
    if (!repeated) {
      await this.owner.emit({ type: 'refused', source: 'payment', reason: refusal.reason, detail: refusal.message });
    }
  }

  /** The key is no longer valid: the owner is told once per key (across restarts). */
  private async lapsed(reason: string, detail: string): Promise<void> {
    const marked = await this.store.keys
      .updateOne({ id: this.wallet.address, lapsedAt: null }, { set: { lapsedAt: new Date(this.now()).toISOString() } })
      .catch(() => ({ matched: false }));
    if (!marked.matched) return;
    this.logger.warn({ reason }, `subscription lapsed: ${detail}; protecting from the ledger until a new key is bought`);
    await this.owner.emit({
      type: 'subscription_lapsed',
      reason,
      detail,
      ...(this.key && { expiresAt: new Date(this.key.expiresAt).toISOString() }),
    });
  }

  private limits(network: string): PurchaseLimits {
    return purchaseLimits({
      network,
      maxPriceUsd: this.config.SERVICE_MAX_PRICE,
      maxSpend30dUsd: this.config.maxSpend30dUsd(),
      asset: this.config.SERVICE_PAYMENT_ASSET,
      payTo: this.config.SERVICE_PAY_TO,
    });
  }

  private email(): string {
    return this.config.SERVICE_EMAIL ?? `agent-${this.wallet.address.slice(0, 12).toLowerCase()}@example.com`;
  }

  /** Logs a problem once when it appears and once when it is gone, not at every retry. */
  private setError(message: string | undefined): void {
    if (message === this.error) return;
    if (message) this.logger.warn({ subscription: 'problem' }, message);
    else if (this.error) this.logger.info({ subscription: 'ok' }, 'subscription problem resolved');
    this.error = message;
  }
}
