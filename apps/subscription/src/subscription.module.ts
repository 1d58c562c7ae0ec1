import { Module } from '@nestjs/common';
import { IntrospectionController } from './keys/introspection.controller';
import { KeyRepository } from './keys/key.repository';
import { KeysService } from './keys/keys.service';
import { MeController } from './keys/me.controller';
import { PartnerKeysController } from './keys/partner-keys.controller';
import { AdminKeyGuard } from './keys/admin-key.guard';
import { LedgerSettlement } from './payment/ledger-settlement';
import { PaymentRepository } from './payment/payment.repository';
import { PaymentService } from './payment/payment.service';
import { AssistedController } from './subscribe/assisted.controller';
import { AssistedPaymentService } from './subscribe/assisted-payment.service';
import { SubscribeController } from './subscribe/subscribe.controller';
import { SubscriptionsService } from './subscribe/subscriptions.service';

@Module({
  controllers: [SubscribeController, AssistedController, PartnerKeysController, IntrospectionController, MeController],
  providers: [
    LedgerSettlement,
    PaymentRepository,
    PaymentService,
    AssistedPaymentService,
    SubscriptionsService,
    KeyRepository,
    KeysService,
    AdminKeyGuard,
  ],
})
export class SubscriptionModule {}
