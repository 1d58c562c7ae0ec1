import { signAhead } from '@rp/ledger';
import type { LedgerWallet } from '@rp/ledger';
import type { Logger } from 'pino';
import type { CloseAudit } from '../close/close-audit';
import type { ClosePath, Decision, SignedClose } from '../close/close-path';
import type { PresignedCache } from '../close/presigned-cache';
import type { MockService } from './mock-service';
import type { PlayedService } from './played-service';

/** The passphrase the played closes are signed for (they are never sent). */
const PLAYED_PASSPHRASE = 'Test SDF Network ; September 2015';

/**
 * `SERVICE_MOCK=true`: a decision is recorded (`skipped`) and nothing is sent to a ledger; the played position is
 * closed and a new one starts drifting. The played closes are signed (the presigned cache and `/status` show them)
 * but never pass the signing rule: it reads a ledger there is none of, and nothing signed here is ever sent.
 */
export class PlayedCloses implements ClosePath {
  constructor(
    private readonly wallet: LedgerWallet,
    private readonly service: PlayedService,
    private readonly mock: MockService,
    private readonly audit: CloseAudit,
    private readonly presigned: PresignedCache,
    private readonly logger: Logger,
  ) {}

  async buildSigned(pool: string, accountSequence: string | undefined): Promise<SignedClose> {
    const built = await this.service.build(pool, { accountSequence });
    return { signed: signAhead(this.wallet, built.unsignedXdr, PLAYED_PASSPHRASE), builtBy: built.builtBy };
  }

  async carryOut(decision: Decision, decidedAtMs: number): Promise<boolean> {
    const pool = decision.poolAddress;
    const entry = this.presigned.get(pool);
    await this.audit.record(decision, decidedAtMs, {
      txHash: entry?.signed.hash ?? null,
      outcome: 'skipped',
      error: 'SERVICE_MOCK: decisions are recorded, nothing is sent to a ledger',
      settledAt: new Date().toISOString(),
      path: entry ? 'presigned' : 'rebuilt',
      builtBy: 'mock',
      validUntil: entry?.signed.validUntil ?? 0,
    });
    this.mock.closed();
    this.presigned.drop(pool);
    this.logger.info({ pool, healthFactor: decision.snapshot.positions[0]?.healthFactor }, 'mock close decided (skipped)');
    return true;
  }

  async resume(): Promise<void> {
    // Nothing played is ever pending.
  }

  stop(): void {
    // Nothing played is followed.
  }
}
