import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/agent.config';
import type { Leases } from '../coordination/leases';
import type { CloseReport } from '../owner/close-report';
import type { CloseAudit } from './close-audit';
import type { ClosePath, Decision, SignedClose } from './close-path';

/**
 * Acts on a position at the acting level, once: the per-(wallet, pool) cooldown lease is taken first (only one
 * decision of one instance gets it), an audit record of the pool inside the cooldown stops it too, then the close
 * path carries the decision out (`SentCloses`, or `PlayedCloses` in mock mode). A decision that did not close the
 * position gives the cooldown back, so a later poll can try again.
 */
export class Closer {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: string,
    private readonly leases: Leases,
    private readonly audit: CloseAudit,
    private readonly path: ClosePath,
    /** The owner's close events (issue 17 §3): a decision that failed unexpectedly. */
    private readonly report: CloseReport,
    private readonly logger: Logger,
  ) {}

  busy(pool: string): boolean {
    return this.inFlight.has(pool);
  }

  stop(): void {
    this.path.stop();
  }

  /** Builds and signs the close of a pool ahead of a decision. */
  buildSigned(pool: string, accountSequence: string | undefined): Promise<SignedClose> {
    return this.path.buildSigned(pool, accountSequence);
  }

  /** Decides on one pool; resolves once the decision is taken (the close itself is followed in the background). */
  async act(decision: Decision): Promise<Promise<void> | undefined> {
    const pool = decision.poolAddress;
    if (this.inFlight.has(pool)) return undefined;
    const decidedAtMs = Date.now();
    const decisionId = randomUUID();
    // A rescue deletes the auction it answers (request 9): sent twice, the second fails on the ledger and moves
    // nothing. So a new auction after an earlier close or rescue is acted on at once, not after the cooldown; the
    // lease of its own only keeps two decisions from running together.
    const cooldown = decision.rescue ? `rescue:${this.wallet}:${pool}` : `cooldown:${this.wallet}:${pool}`;
    const cooldownMs = this.config.CLOSE_COOLDOWN_TTL * 1000;
    if (!(await this.leases.acquire(cooldown, decisionId, cooldownMs))) return undefined;
    const recent = decision.rescue ? undefined : await this.audit.recent(pool, decidedAtMs - cooldownMs);
    if (recent && recent.outcome !== 'failed') {
      this.logger.info({ pool, outcome: recent.outcome, txHash: recent.txHash }, 'a close of this pool is recent: not closing again');
      return undefined;
    }
    this.inFlight.add(pool);
    const work = this.path
      .carryOut(decision, decidedAtMs)
      .then(async (closed) => {
        if (!closed || decision.rescue) await this.leases.release(cooldown, decisionId);
      })
      .catch(async (error: unknown) => {
        this.logger.error({ pool, err: error }, 'close failed unexpectedly');
        const message = error instanceof Error ? error.message : String(error);
        await this.report.failed({ poolAddress: pool, riskSnapshot: decision.snapshot }, message);
        return this.leases.release(cooldown, decisionId);
      })
      .finally(() => this.inFlight.delete(pool));
    return work;
  }

  /** Follows the attempts a previous run of the agent left `submitted` (it stopped before their outcome). */
  resume(): Promise<void> {
    return this.path.resume((pool) => this.inFlight.has(pool));
  }
}
