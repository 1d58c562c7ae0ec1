import { Module } from '@nestjs/common';
import { RiskConfigModule } from '../risk-config/risk-config.module';
import { PoolSnapshots } from './pool-snapshots';
import { RiskController } from './risk.controller';
import { RiskEvaluator } from './risk-evaluator';
import { RmsLedger } from './rms-ledger';

/** Risk evaluation against the ledger: the watched pools, their snapshots per ledger, positions valued. */
@Module({
  providers: [RmsLedger, PoolSnapshots, RiskEvaluator],
  exports: [RmsLedger, PoolSnapshots, RiskEvaluator],
})
export class RiskModule {}

/** `GET /api/v1/rms/risk/:walletAddress` (role `api`). */
@Module({ imports: [RiskModule, RiskConfigModule], controllers: [RiskController] })
export class RiskRoutesModule {}
