import type { AccountBalance } from '@rp/ledger';
import type { BuiltClose } from '../close/built-close';
import type { NetworkFee } from '../close/presigned-cache';
import type { CloseSource, SnapshotPosition } from '../store/agent-store';

/** Where the agent's answers come from at a poll: the service, the ledger itself (degraded), or the mock. */
export type AgentMode = 'service' | 'degraded' | 'mock';

/** A pool's oracle prices (asset -> decimal string) and the ledger they were read at. */
export interface PoolPrices {
  readonly prices: Record<string, string>;
  readonly ledger: number | null;
}

/**
 * `ledgerOnly`: the service's build was refused by the signing rule, build it from the ledger. `accountSequence`: the
 * account's sequence number (the played service builds on it). `rescue`: an auction runs against the wallet, build
 * the RESCUE (just enough in, then request 9) instead of the close.
 */
export interface BuildOptions {
  readonly ledgerOnly?: boolean;
  readonly accountSequence?: string;
  readonly rescue?: boolean;
}

/** One reading of the wallet's positions. */
export interface RiskReading {
  readonly mode: AgentMode;
  /** What a decision's risk snapshot says it came from. */
  readonly source: CloseSource;
  readonly positions: SnapshotPosition[];
  /** The prices of a pool of this reading (from what the reading already holds, else read now). */
  prices(pool: string): Promise<PoolPrices>;
}

/**
 * The service as the agent uses it, chosen once at start (`agent-runtime.ts`), the one seam between the modes:
 * `GatewayService` (the risk route and txb through the gateway with the agent's key; while it has none or the
 * service does not answer, `LedgerService` answers instead), `LedgerService` (positions, prices and closes read and
 * built from the ledger: degraded mode) and `PlayedService` (`SERVICE_MOCK`: the answers played in process).
 */
export interface AgentService {
  /** The mode the agent starts in (shown in `/status` until the first poll). */
  readonly mode: AgentMode;
  /** The wallet's positions now. */
  read(): Promise<RiskReading>;
  /** The wallet's account: its fee balance and sequence number. */
  account(): Promise<AccountBalance | undefined>;
  /** What the network asks for a close now (a presigned close bidding less is signed again); none when nothing is sent. */
  networkFee(): Promise<NetworkFee | undefined>;
  /**
   * The close of a pool, unsigned and priced. `ledgerOnly`: the service's build was refused by the signing rule,
   * build it from the ledger. `accountSequence`: the account's sequence number (the played service builds on it).
   */
  build(pool: string, options?: BuildOptions): Promise<BuiltClose>;
}
