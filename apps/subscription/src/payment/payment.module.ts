import { Module } from '@nestjs/common';
import { PayerCooldownRepository } from './payer-cooldown.repository';
import { PaymentConfiguredGuard, PaymentContext } from './payment-context';
import { PaymentRepository } from './payment.repository';
import { PaymentService } from './payment.service';
import { SettlementLaneRepository } from './settlement-lanes.repository';
import { SettlementLanes } from './settlement-lanes.service';
import { SettlementReconciler } from './settlement-reconciler';
import { SettlementRepricer } from './settlement-repricer';
import { SettlementService } from './settlement.service';

/**
 * Taking payments: the configuration (one guard answers 503 while there is none), the rules, settlement over
 * leased lanes, the records, and the reconciler that finishes what a request left open.
 */
@Module({
  providers: [
    PaymentContext,
    PaymentConfiguredGuard,
    PaymentRepository,
    PayerCooldownRepository,
    SettlementLaneRepository,
    SettlementLanes,
    SettlementService,
    SettlementRepricer,
    SettlementReconciler,
    PaymentService,
  ],
  exports: [PaymentContext, PaymentConfiguredGuard, PaymentRepository, PaymentService, SettlementReconciler],
})
export class PaymentModule {}
