import { Injectable, Logger } from '@nestjs/common';
import { LedgerRpc, type ExactRequirements, type PaymentPayload } from '@rp/ledger';
import { createEd25519Signer } from '@x402/stellar';
import { ExactStellarScheme } from '@x402/stellar/exact/facilitator';
import { Registry } from 'prom-client';
import { SubscriptionConfig } from '../config/subscription.config';
import { type PaymentSettings, resolvePaymentSettings } from './payment-settings';

export type SettlementOutcome =
  | { settled: true; txHash: string; payer: string }
  | { settled: false; reason: string; txHash?: string };

/**
 * The wire to the ledger for payments: `@x402/stellar`'s facilitator (which re-verifies the payment with a
 * simulation, rebuilds it with the sponsor as source, submits it and polls for the final answer) and our own
 * resilient RPC client for everything else. `settings` is `undefined` while payment is not configured.
 */
@Injectable()
export class LedgerSettlement {
  private readonly logger = new Logger(LedgerSettlement.name);
  readonly settings?: PaymentSettings;
  readonly ledger?: LedgerRpc;
  private readonly facilitator?: ExactStellarScheme;

  constructor(config: SubscriptionConfig, registry: Registry) {
    this.settings = resolvePaymentSettings(config);
    if (!this.settings) return;
    this.ledger = new LedgerRpc({
      rpcUrl: this.settings.rpcUrl,
      timeoutMs: config.LEDGER_RPC_TIMEOUT_MS,
      registry,
      network: this.settings.network,
    });
    this.facilitator = new ExactStellarScheme(
      [createEd25519Signer(this.settings.sponsor.secret(), this.settings.caip2 as `${string}:${string}`)],
      { rpcConfig: { url: this.settings.rpcUrl } },
    );
  }

  async latestLedger(): Promise<number> {
    return (await this.requireLedger().getLatestLedger()).sequence;
  }

  /** Verifies again, submits with the sponsor paying, and waits for SUCCESS or FAILED. */
  async settle(payload: PaymentPayload, requirements: ExactRequirements): Promise<SettlementOutcome> {
    if (!this.facilitator) throw new Error('payment is not configured');
    const started = Date.now();
    // @x402/core's types are structurally the same JSON; the facilitator reads only these fields.
    const result = await this.facilitator.settle(payload as never, requirements as never);
    this.logger.log(
      { success: result.success, reason: result.errorReason, txHash: result.transaction, ms: Date.now() - started },
      'settlement finished',
    );
    if (result.success) return { settled: true, txHash: result.transaction, payer: result.payer ?? '' };
    if (result.errorReason === 'unexpected_settle_error' && result.transaction) {
      // The transaction went out but the poll broke off: ask the ledger for its final answer ourselves.
      const status = await this.requireLedger().getTransaction(result.transaction);
      if (status.status === 'SUCCESS') return { settled: true, txHash: result.transaction, payer: result.payer ?? '' };
    }
    return {
      settled: false,
      reason: result.errorReason ?? 'settlement_failed',
      txHash: result.transaction || undefined,
    };
  }

  private requireLedger(): LedgerRpc {
    if (!this.ledger) throw new Error('payment is not configured');
    return this.ledger;
  }
}
