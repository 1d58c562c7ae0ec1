import { Module } from '@nestjs/common';
import { AccountOwnersController } from './keys/account-owners.controller';
import { AdminKeyGuard } from './keys/admin-key.guard';
import { IntrospectionController } from './keys/introspection.controller';
import { KeyMigration } from './keys/key-migration';
import { KeyRepository } from './keys/key.repository';
import { KeysService } from './keys/keys.service';
import { MeController } from './keys/me.controller';
import { PartnerKeysController } from './keys/partner-keys.controller';
import { PaymentModule } from './payment/payment.module';
import { AssistedController } from './subscribe/assisted.controller';
import { AssistedPaymentService } from './subscribe/assisted-payment.service';
import { PaymentAnswers } from './subscribe/payment-answers';
import { SubscribeController } from './subscribe/subscribe.controller';
import { SubscriptionsService } from './subscribe/subscriptions.service';

@Module({
  imports: [PaymentModule],
  controllers: [
    SubscribeController,
    AssistedController,
    PartnerKeysController,
    IntrospectionController,
    AccountOwnersController,
    MeController,
  ],
  providers: [
    PaymentAnswers,
    AssistedPaymentService,
    SubscriptionsService,
    KeyRepository,
    KeysService,
    KeyMigration,
    AdminKeyGuard,
  ],
})
export class SubscriptionModule {}
