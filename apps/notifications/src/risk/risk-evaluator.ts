import { Injectable } from '@nestjs/common';
import type { RiskLevelBounds, RiskPositionScenarios } from '@rp/contracts';
import { assessPosition, holdsCollateralOrDebt, liquidationScenarios, loadUserAuctions } from '@rp/ledger';
import { BorrowRateRecord, lastRoundBefore } from './borrow-rate-record';
import type { EvaluatedPosition } from './risk-alert';
import { PoolSnapshots } from './pool-snapshots';
import { RmsLedger } from './rms-ledger';

/** A position read now: its liquidation scenarios are computed when asked (the risk answer shows them). */
export interface AssessedPosition extends EvaluatedPosition {
  scenarios(): RiskPositionScenarios;
}

export interface Evaluation {
  /** Positions with collateral or debt, in the order of the wallets then of `RMS_POOLS`. */
  readonly positions: AssessedPosition[];
  readonly evaluatedAt: string;
  /** The ledger the positions were read at. */
  readonly ledger: number;
}

/** Wallets whose positions are read together (x pools keys, 200 per `getLedgerEntries`). */
const WALLETS_PER_READ = 2_000;

/**
 * Reads wallets' positions in every watched pool and values them with Blend's integer math at the prices the
 * pool's oracle gives: the risk route, the admin trigger and any one-off evaluation use it (the monitor keeps its
 * own cache of positions between rounds).
 */
@Injectable()
export class RiskEvaluator {
  constructor(
    private readonly ledger: RmsLedger,
    private readonly snapshots: PoolSnapshots,
    private readonly rateRecord: BorrowRateRecord,
  ) {}

  /** `boundsOf`: a wallet's level bounds (the defaults where it answers undefined or is not given). */
  async evaluate(
    wallets: readonly string[],
    boundsOf: (wallet: string) => RiskLevelBounds | undefined = () => undefined,
  ): Promise<Evaluation> {
    const pools = this.ledger.pools();
    const stablecoins = this.ledger.stablecoins();
    const [reader, rateHistory] = await Promise.all([this.ledger.poolReader(), this.rateRecord.read()]);
    const positions: AssessedPosition[] = [];
    let ledger = 0;
    for (let start = 0; start < wallets.length; start += WALLETS_PER_READ) {
      const slice = wallets.slice(start, start + WALLETS_PER_READ);
      const pairs = slice.flatMap((user) => pools.map((pool) => ({ pool, user })));
      // Positions and auctions (`liquidation_auction`) of the same pairs, side by side.
      const [read, auctions] = await Promise.all([
        reader.loadPositionsAcross(pairs),
        loadUserAuctions(this.ledger.rpc(), pairs),
      ]);
      ledger = Math.max(ledger, read.latestLedger);
      const snapshots = await Promise.all(pools.map((pool) => this.snapshots.at(pool, read.latestLedger)));
      // "Since the last round": the monitor's last round before this ledger (the one before, if it ran this ledger).
      const lastRound = lastRoundBefore(rateHistory, read.latestLedger);
      for (const wallet of slice) {
        pools.forEach((pool, index) => {
          const held = read.positions.get(pool)?.get(wallet);
          if (!held || !holdsCollateralOrDebt(held)) return;
          const { pool: state, prices, closeTime } = snapshots[index];
          positions.push({
            wallet,
            pool,
            risk: assessPosition(state.reserves, prices, held, boundsOf(wallet), {
              status: state.config.status,
              stablecoins,
              ledgerCloseTime: closeTime,
              previousBorrowRates: lastRound?.rates.get(pool),
              liquidationAuction: auctions.get(pool)?.has(wallet),
            }),
            scenarios: () => liquidationScenarios(state.reserves, prices, held),
          });
        });
      }
    }
    return { positions, evaluatedAt: new Date().toISOString(), ledger };
  }
}
