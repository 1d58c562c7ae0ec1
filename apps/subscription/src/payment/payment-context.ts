import { type CanActivate, Injectable, Logger } from '@nestjs/common';
import { SubscriptionErrorCode as Code } from '@rp/contracts';
import { CloseFeeReader, LedgerRpc, LedgerTiming } from '@rp/ledger';
import { ApiError } from '@rp/platform';
import { Registry } from 'prom-client';
import { SubscriptionConfig } from '../config/subscription.config';
import { type PaymentSettings, resolvePaymentSettings } from './payment-settings';

/** What taking a payment needs once it is configured: the settings, the ledger and its timing. */
export interface ConfiguredPayment {
  settings: PaymentSettings;
  ledger: LedgerRpc;
  timing: LedgerTiming;
  /** The inclusion fee the network asks now (`getFeeStats` p95 + 25%, read at most once a second). */
  fees: CloseFeeReader;
}

/**
 * The one place that knows whether payment is configured (a receiving address, a sponsor key and an RPC). The
 * payment routes are guarded by `PaymentConfiguredGuard`, so code behind them can take `current()` for granted;
 * background work (the reconciler) asks `configured` first.
 */
@Injectable()
export class PaymentContext {
  private readonly logger = new Logger(PaymentContext.name);
  private readonly payment?: ConfiguredPayment;

  constructor(config: SubscriptionConfig, registry: Registry) {
    const settings = resolvePaymentSettings(config);
    if (!settings) {
      this.logger.warn(
        'payment is not configured (receiving address, sponsor key or RPC missing): subscribe answers 503',
      );
      return;
    }
    const ledger = new LedgerRpc({
      rpcUrl: settings.rpcUrl,
      timeoutMs: settings.rpcTimeoutMs,
      registry,
      network: settings.network,
    });
    this.payment = { settings, ledger, timing: new LedgerTiming(ledger), fees: new CloseFeeReader(ledger) };
  }

  get configured(): boolean {
    return this.payment !== undefined;
  }

  /** The configured payment. Only reachable behind `PaymentConfiguredGuard` or after checking `configured`. */
  current(): ConfiguredPayment {
    if (!this.payment) throw new Error('payment is not configured: guard the route with PaymentConfiguredGuard');
    return this.payment;
  }
}

/** 503 PAYMENT_NOT_CONFIGURED for every payment route while payment is not configured: the one place it is said. */
@Injectable()
export class PaymentConfiguredGuard implements CanActivate {
  constructor(private readonly context: PaymentContext) {}

  canActivate(): boolean {
    if (this.context.configured) return true;
    throw new ApiError(503, Code.PAYMENT_NOT_CONFIGURED, 'Payment is not configured on this server', {
      headers: { 'Retry-After': '300' },
    });
  }
}
