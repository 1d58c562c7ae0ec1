import { Module } from '@nestjs/common';
import { RedisClient } from '@rp/platform';
import { NotificationsSettings } from '../settings/notifications-settings';
import { BorrowRateRecord } from './borrow-rate-record';
import { RiskConfigModule } from '../risk-config/risk-config.module';
import { PoolSnapshots } from './pool-snapshots';
import { RiskController } from './risk.controller';
import { RiskEvaluator } from './risk-evaluator';
import { RmsLedger } from './rms-ledger';

/** Risk evaluation against the ledger: the watched pools, their snapshots per ledger, positions valued. */
@Module({
  providers: [
    RmsLedger,
    PoolSnapshots,
    RiskEvaluator,
    {
      // The monitor's record of its rounds' borrow rates; without Redis (the risk routes alone) there is none.
      provide: BorrowRateRecord,
      useFactory: (settings: NotificationsSettings, redis?: RedisClient) =>
        new BorrowRateRecord(redis, settings.keyPrefix()),
      inject: [NotificationsSettings, { token: RedisClient, optional: true }],
    },
  ],
  exports: [RmsLedger, PoolSnapshots, RiskEvaluator, BorrowRateRecord],
})
export class RiskModule {}

/** `GET /api/v1/rms/risk/:walletAddress` (role `api`). */
@Module({ imports: [RiskModule, RiskConfigModule], controllers: [RiskController] })
export class RiskRoutesModule {}
