import { Injectable } from '@nestjs/common';
import type { FeeLevel } from '@rp/contracts';
import { type InclusionFeeChoice, type LeveledFeeDistribution, chooseInclusionFee } from '@rp/ledger';
import { TxbConfig } from '../config/txb.config';
import { TxbLedger } from '../ledger/txb-ledger';

/** How long one `getFeeStats` answer prices builds (about a ledger's close time is far longer). */
const FEE_STATS_MAX_AGE_MS = 1000;

/**
 * Prices a build's inclusion fee from the configured RPC's `getFeeStats` (`chooseInclusionFee`), capped by
 * `TXB_MAX_INCLUSION_FEE_STROOPS`. One answer serves the builds of the next second. When `getFeeStats` fails the
 * last answer read stands (a failing RPC is likeliest when the network is busiest); before any, the minimum.
 */
@Injectable()
export class InclusionFeePricer {
  private last: { distribution: LeveledFeeDistribution; atMs: number } | undefined;
  private reading: Promise<LeveledFeeDistribution | undefined> | undefined;

  constructor(
    private readonly config: TxbConfig,
    private readonly ledger: TxbLedger,
  ) {}

  async price(level: FeeLevel): Promise<InclusionFeeChoice> {
    const distribution = await this.distribution();
    return chooseInclusionFee(distribution, level, BigInt(this.config.TXB_MAX_INCLUSION_FEE_STROOPS));
  }

  private distribution(): Promise<LeveledFeeDistribution | undefined> {
    if (this.last && Date.now() - this.last.atMs < FEE_STATS_MAX_AGE_MS) return Promise.resolve(this.last.distribution);
    this.reading ??= this.ledger
      .rpc()
      .getFeeStats()
      .then(
        ({ sorobanInclusionFee }) => {
          this.last = { distribution: sorobanInclusionFee, atMs: Date.now() };
          return sorobanInclusionFee;
        },
        () => this.last?.distribution,
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
