import { Module } from '@nestjs/common';
import { RiskBounds } from './risk-bounds';
import { RiskConfigController } from './risk-config.controller';
import { RiskConfigRepository } from './risk-config.repository';

/** Per-wallet risk configurations (account-scoped) and the level bounds the risk answer and the monitor use. */
@Module({
  providers: [RiskConfigRepository, RiskBounds],
  exports: [RiskConfigRepository, RiskBounds],
})
export class RiskConfigModule {}

/** Role `api`: `GET|PUT /api/v1/rms/config/:walletAddress`. */
@Module({ imports: [RiskConfigModule], controllers: [RiskConfigController] })
export class RiskConfigRoutesModule {}
