import { randomUUID } from 'node:crypto';
import { type CloseSigningContext, type LedgerWallet, type SignedAhead, signAhead } from '@rp/ledger';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/agent.config';
import type { Leases } from '../coordination/leases';
import type { AgentMetrics } from '../metrics/agent-metrics';
import type { MockService } from '../mock/mock-service';
import type { CloseReport } from '../owner/close-report';
import type { AgentStore, AuditRecord, RiskSnapshot } from '../store/agent-store';
import type { SubscriptionKeeper } from '../subscription/subscription-keeper';
import { type BuiltClose, CloseRefusedError } from './built-close';
import type { CloseBuilder } from './close-builder';
import type { CloseSender } from './close-sender';
import { type PresignedCache, movedBeyondSlippage, sendable } from './presigned-cache';
import type { SigningGuard } from './signing-guard';

/** Attempts per decision: the presigned close (or a first build), then rebuilds after a refusal or failure. */
const MAX_ATTEMPTS = 3;
/** Approvals waited for before the close is built again. */
const MAX_APPROVALS = 2;

export interface Decision {
  readonly poolAddress: string;
  readonly snapshot: RiskSnapshot;
  /** The account's sequence number when the decision was taken (undefined in mock mode). */
  readonly accountSequence: string | undefined;
}

/**
 * Acts on a position at the acting level, once: the per-(wallet, pool) cooldown lease is taken first (only one
 * decision of one instance gets it), an audit record of the pool inside the cooldown stops it too, then the
 * presigned close is sent at once; when the ledger refuses or fails it, the close is built, signed and sent again.
 * Every attempt is an audit record written before the send (the hash is known) and followed to its final state.
 */
export class Closer {
  private readonly inFlight = new Set<string>();
  private stopped = false;

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: LedgerWallet,
    private readonly store: AgentStore,
    private readonly leases: Leases,
    private readonly presigned: PresignedCache,
    private readonly builder: CloseBuilder,
    private readonly sender: CloseSender,
    private readonly subscription: SubscriptionKeeper,
    private readonly metrics: AgentMetrics,
    private readonly logger: Logger,
    private readonly passphrase: () => Promise<string>,
    private readonly mock: MockService | undefined,
    private readonly guard: SigningGuard,
    /** The owner's close events (issue 17 §3): sent, confirmed, failed once per decision. */
    private readonly report: CloseReport,
  ) {}

  busy(pool: string): boolean {
    return this.inFlight.has(pool);
  }

  stop(): void {
    this.stopped = true;
  }

  /** Decides on one pool; resolves once the decision is taken (the close itself is followed in the background). */
  async act(decision: Decision): Promise<Promise<void> | undefined> {
    const pool = decision.poolAddress;
    if (this.inFlight.has(pool)) return undefined;
    const decidedAtMs = Date.now();
    const decisionId = randomUUID();
    const cooldown = `cooldown:${this.wallet.address}:${pool}`;
    if (!(await this.leases.acquire(cooldown, decisionId, this.config.CLOSE_COOLDOWN_TTL * 1000))) return undefined;
    const recent = await this.store.audit.findOne(
      { wallet: this.wallet.address, poolAddress: pool, decidedAtMs: { $gte: decidedAtMs - this.config.CLOSE_COOLDOWN_TTL * 1000 } },
      { sort: { field: 'decidedAtMs', direction: 'desc' } },
    );
    if (recent && recent.outcome !== 'failed') {
      this.logger.info({ pool, outcome: recent.outcome, txHash: recent.txHash }, 'a close of this pool is recent: not closing again');
      return undefined;
    }
    this.inFlight.add(pool);
    const work = this.run(decision, decidedAtMs)
      .then(async (closed) => {
        if (!closed) await this.leases.release(cooldown, decisionId);
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

  /** True once the position is closed (or there is nothing left to close); false to let a later poll try again. */
  private async run(decision: Decision, decidedAtMs: number): Promise<boolean> {
    const pool = decision.poolAddress;
    if (this.mock) {
      const entry = this.presigned.get(pool);
      await this.record(decision, decidedAtMs, {
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
    const facts = { poolAddress: pool, riskSnapshot: decision.snapshot };
    let lastHash: string | undefined;
    let lastError = 'not sent';
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !this.stopped; attempt += 1) {
      const entry = this.presigned.get(pool);
      const presigned =
        attempt === 0 &&
        sendable(entry, decision.accountSequence, Date.now() / 1000) &&
        !movedBeyondSlippage(entry?.prices ?? {}, decision.snapshot.prices, this.config.SLIPPAGE) &&
        // Bidding less than the network asked at the last fee read (no I/O): built and signed again at that fee.
        !this.builder.underpriced(entry?.signed.envelope ?? '') &&
        // The rule once more on what was signed ahead (no I/O): a refusal drops it and the close is built again.
        (entry?.rule === undefined ||
          this.guard.recheck(entry.signed.envelope, entry.rule, decision.accountSequence, entry.builtBy).ok);
      let signed: SignedAhead;
      let builtBy: AuditRecord['builtBy'];
      if (presigned && entry) {
        signed = entry.signed;
        builtBy = entry.builtBy;
      } else {
        this.presigned.drop(pool);
        let built: { signed: SignedAhead; builtBy: AuditRecord['builtBy'] };
        try {
          built = await this.buildSigned(pool);
        } catch (error) {
          const gone = error instanceof CloseRefusedError && error.code.startsWith('NO_');
          await this.record(decision, decidedAtMs, {
            txHash: null,
            outcome: gone ? 'skipped' : 'failed',
            error: (error as Error).message,
            settledAt: new Date().toISOString(),
            path: 'rebuilt',
            builtBy: 'ledger',
            validUntil: 0,
          });
          this.logger.warn({ pool, err: (error as Error).message }, 'could not build the close');
          if (!gone) await this.report.failed({ ...facts, txHash: lastHash }, (error as Error).message);
          return gone;
        }
        signed = built.signed;
        builtBy = built.builtBy;
      }
      const path = presigned ? 'presigned' : 'rebuilt';
      const record = await this.record(decision, decidedAtMs, {
        txHash: signed.hash,
        outcome: 'submitted',
        settledAt: null,
        path,
        builtBy,
        validUntil: signed.validUntil,
      });
      const sentAt = Date.now();
      this.metrics.decisionToSend((sentAt - decidedAtMs) / 1000, path);
      const sent = await this.sender
        .send(signed, builtBy === 'service' ? this.subscription.apiKey() : undefined)
        .catch((error: unknown) => ({ accepted: false as const, hash: signed.hash, error: (error as Error).message }));
      this.logger.info(
        {
          pool,
          txHash: signed.hash,
          path,
          builtBy,
          decisionToSendMs: sentAt - decidedAtMs,
          // Until the network (or txb's submit, which sends it) answered: an upper bound of the send itself.
          decisionToAcceptedMs: Date.now() - decidedAtMs,
          accepted: sent.accepted,
          via: sent.accepted ? sent.via : undefined,
        },
        sent.accepted ? 'close sent' : 'close refused at submission',
      );
      lastHash = signed.hash;
      if (!sent.accepted) {
        lastError = sent.error;
        await this.settle(record, 'failed', sent.error);
        this.presigned.drop(pool);
        continue;
      }
      await this.report.sent({ ...facts, txHash: signed.hash });
      const final = await this.sender.follow(signed.hash, signed.validUntil, () => this.stopped);
      if (final.state === 'confirmed') {
        await this.settle(record, 'confirmed');
        this.presigned.drop(pool);
        this.logger.info({ pool, txHash: signed.hash, ledger: final.ledger }, 'close confirmed');
        await this.report.confirmed({ ...facts, txHash: signed.hash });
        return true;
      }
      // Stopping while it is pending: the record stays `submitted` and the next start follows it (resume()).
      if (this.stopped) return false;
      lastError = final.error;
      await this.settle(record, 'failed', final.error);
      this.presigned.drop(pool);
      this.logger.warn({ pool, txHash: signed.hash, error: final.error }, 'close failed on the ledger; rebuilding');
    }
    if (!this.stopped) await this.report.failed({ ...facts, txHash: lastHash }, lastError);
    return false;
  }

  /**
   * Builds and signs a close; an approval the pool needs first is sent and waited for, then the close is built.
   * Nothing is signed before the signing rule accepts it: a build of the service's it refuses is built again here
   * from the ledger (and the service is not asked again within this close), which must pass the same rule.
   */
  async buildSigned(
    pool: string,
    mockSequence?: string,
  ): Promise<{ signed: SignedAhead; builtBy: AuditRecord['builtBy']; rule?: CloseSigningContext }> {
    const passphrase = await this.passphrase();
    let ledgerOnly = false;
    for (let round = 0; round <= MAX_APPROVALS; round += 1) {
      let built: BuiltClose = await this.builder.build(pool, mockSequence, ledgerOnly);
      let rule: CloseSigningContext | undefined;
      if (built.builtBy !== 'mock') {
        let checked = await this.guard.check(pool, built);
        if (!checked.ok && built.builtBy === 'service') {
          ledgerOnly = true;
          built = await this.builder.build(pool, mockSequence, true);
          checked = await this.guard.check(pool, built);
        }
        if (!checked.ok) throw new CloseRefusedError('TRANSACTION_REFUSED', `${checked.reason}: ${checked.detail}`);
        rule = checked.context;
      }
      const signed = signAhead(this.wallet, built.unsignedXdr, passphrase);
      if (built.route !== 'approve') return { signed, builtBy: built.builtBy, rule };
      await this.approve(pool, signed, built);
    }
    throw new CloseRefusedError('APPROVAL_NOT_EFFECTIVE', 'the pool still lacks the approval after approving it');
  }

  private async approve(pool: string, signed: SignedAhead, built: BuiltClose): Promise<void> {
    this.logger.info({ pool, txHash: signed.hash }, 'approving the pool to settle the unwind (needed before the close)');
    const sent = await this.sender.send(signed, built.builtBy === 'service' ? this.subscription.apiKey() : undefined);
    if (!sent.accepted) throw new CloseRefusedError('APPROVAL_REFUSED', sent.error);
    const final = await this.sender.follow(signed.hash, signed.validUntil, () => this.stopped);
    if (final.state !== 'confirmed') throw new CloseRefusedError('APPROVAL_FAILED', final.error);
  }

  private async record(
    decision: Decision,
    decidedAtMs: number,
    fields: Pick<AuditRecord, 'txHash' | 'outcome' | 'settledAt' | 'path' | 'builtBy' | 'validUntil'> & { error?: string },
  ): Promise<AuditRecord> {
    const record = await this.store.audit.insert({
      wallet: this.wallet.address,
      poolAddress: decision.poolAddress,
      riskSnapshot: decision.snapshot,
      decidedAtMs,
      recordedAtMs: Date.now(),
      ...fields,
    });
    this.metrics.close(fields.outcome);
    return record;
  }

  private async settle(record: AuditRecord, outcome: 'confirmed' | 'failed', error?: string): Promise<void> {
    await this.store.audit.updateOne(
      { id: record.id },
      { set: { outcome, settledAt: new Date().toISOString(), ...(error !== undefined && { error }) } },
    );
    this.metrics.close(outcome);
  }

  /** Follows the attempts a previous run of the agent left `submitted` (it stopped before their outcome). */
  async resume(): Promise<void> {
    const open = await this.store.audit.find({ wallet: this.wallet.address, outcome: 'submitted' });
    await Promise.all(
      open.map(async (record) => {
        // A close this run is following is settled (and told) by run() itself.
        if (!record.txHash || this.inFlight.has(record.poolAddress)) return;
        const final = await this.sender.follow(record.txHash, record.validUntil, () => this.stopped);
        if (final.state === 'failed' && this.stopped) return;
        await this.settle(record, final.state, final.state === 'failed' ? final.error : undefined);
        this.logger.info({ pool: record.poolAddress, txHash: record.txHash, outcome: final.state }, 'earlier close settled');
        if (final.state === 'confirmed') await this.report.confirmed(record);
        else await this.report.failed(record, final.error);
      }),
    );
  }
}
