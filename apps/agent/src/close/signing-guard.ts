import {
  BLEND_POOL_FACTORY_V2,
  type CloseSigningContext,
  PoolFactoryClient,
  type SigningVerdict,
  verifyCloseTransaction,
} from '@rp/ledger';
import type { AgentConfig } from '../config/agent.config';
import type { LedgerView } from '../ledger/ledger-view';
import type { BuiltClose } from './built-close';
import { RescueTarget } from './rescue-target';
import type { SigningRefusals } from './signing-refusals';

/**
 * The most seconds ahead a close's time bound may end: two proposal lifetimes (txb's PROPOSAL_TTL_SECONDS and the
 * agent's own builds live 300 s), so a close signed ahead is never valid for long.
 */
export const PRESIGN_HORIZON_S = 600;
/** An approval may last three horizons, in 5 s ledgers (txb and the agent approve for three proposal lifetimes). */
export const APPROVAL_LEDGERS = Math.ceil((3 * PRESIGN_HORIZON_S) / 5);

export type CheckedClose = { readonly ok: true; readonly context: CloseSigningContext } | Extract<SigningVerdict, { ok: false }>;

/**
 * Applies the signing rule (`verifyCloseTransaction`) to a close before it is signed: reads what the rule needs from
 * the ledger (the position, the sequence number, the latest ledger), decides whether the pool is one the agent may
 * act on (`WATCHED_POOLS`, else the Blend pool factory's `is_pool` at BLEND_POOL_FACTORY, answers cached), and
 * records every refusal through `SigningRefusals`.
 */
export class SigningGuard {
  private factory?: Promise<PoolFactoryClient>;

  constructor(
    private readonly config: AgentConfig,
    private readonly wallet: string,
    private readonly ledger: LedgerView,
    private readonly refusals: SigningRefusals,
    private readonly rescueTarget: RescueTarget = new RescueTarget(),
  ) {}

  /** The verdict on `built` (a close of `pool`); a refusal is recorded before it is returned. */
  async check(pool: string, built: BuiltClose): Promise<CheckedClose> {
    const source = built.builtBy === 'service' ? 'service' : 'ledger';
    const trusted = await this.trusted(pool);
    if (!trusted.ok) {
      this.refusals.record({ source, reason: 'unknown_pool', pool, detail: trusted.detail });
      return { ok: false, reason: 'unknown_pool', detail: trusted.detail };
    }
    const read = await this.ledger.signingRead(pool);
    const context: CloseSigningContext = {
      wallet: this.wallet,
      passphrase: await this.ledger.passphrase(),
      accountSequence: read.accountSequence,
      nowSeconds: Date.now() / 1000,
      horizonSeconds: PRESIGN_HORIZON_S,
      maxFeeStroops: BigInt(this.config.MAX_CLOSE_FEE_STROOPS),
      pool,
      poolTrusted: true,
      receiver: this.config.UNWIND_RECEIVER,
      position: read.position,
      slippageBps: this.config.SLIPPAGE,
      latestLedger: read.latestLedger,
      approvalLedgers: APPROVAL_LEDGERS,
      // Request 9 only while the ledger itself shows an auction against the wallet (never on the service's word).
      ...(read.auction && { rescue: { targetHealthFactor: this.rescueTarget.scaled } }),
    };
    const verdict = verifyCloseTransaction(built.unsignedXdr, context);
    if (verdict.ok) return { ok: true, context };
    this.refusals.record({ source, reason: verdict.reason, pool, detail: verdict.detail });
    return verdict;
  }

  /**
   * The rule again on a presigned close about to be sent, with the context it was signed under, now and the
   * account's sequence at the decision: no I/O, a decode and a few comparisons.
   */
  recheck(envelope: string, context: CloseSigningContext, accountSequence: string | undefined, builtBy: string): SigningVerdict {
    const verdict = verifyCloseTransaction(envelope, {
      ...context,
      nowSeconds: Date.now() / 1000,
      accountSequence: accountSequence ?? context.accountSequence,
    });
    if (!verdict.ok) {
      const source = builtBy === 'service' ? 'service' : 'ledger';
      this.refusals.record({ source, reason: verdict.reason, pool: context.pool, detail: verdict.detail });
    }
    return verdict;
  }

  private async trusted(pool: string): Promise<{ ok: true } | { ok: false; detail: string }> {
    if (this.config.WATCHED_POOLS.includes(pool)) return { ok: true };
    try {
      const factory = await this.poolFactory();
      if (await factory.isPool(pool)) return { ok: true };
      return { ok: false, detail: `${pool} is not in WATCHED_POOLS and the pool factory ${factory.contractId} does not know it` };
    } catch (error) {
      return { ok: false, detail: `${pool} is not in WATCHED_POOLS and the pool factory could not be read: ${(error as Error).message}` };
    }
  }

  private poolFactory(): Promise<PoolFactoryClient> {
    this.factory ??= this.ledger.network().then(
      (network) => new PoolFactoryClient(this.ledger.rpc, this.config.BLEND_POOL_FACTORY ?? BLEND_POOL_FACTORY_V2[network]),
      (error: unknown) => {
        this.factory = undefined;
        throw error;
      },
    );
    return this.factory;
  }
}
