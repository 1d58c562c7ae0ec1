import type { PresignedCache } from '../close/presigned-cache';
import type { SigningRefusals } from '../close/signing-refusals';
import type { LedgerView } from '../ledger/ledger-view';
import type { Agent } from '../loop/agent';
import { xlm } from '../loop/agent';
import { type AgentStore, type AuditRecord, decidedAtOf } from '../store/agent-store';
import type { Subscription } from '../subscription/subscription';

const RECENT_CLOSES = 20;
/** Nominal ledger close time, to tell how many ledgers a presigned close's time bounds still cover. */
const SECONDS_PER_LEDGER = 5;

/** The public audit record (DECISIONS.md, Agent): the internal fields stay in the database. */
export function publicAudit(record: AuditRecord) {
  return {
    wallet: record.wallet,
    poolAddress: record.poolAddress,
    riskSnapshot: record.riskSnapshot,
    txHash: record.txHash,
    outcome: record.outcome,
    ...(record.error !== undefined && { error: record.error }),
    decidedAt: decidedAtOf(record),
    settledAt: record.settledAt,
    ...(record.attempts && { attempts: record.attempts }),
  };
}

/**
 * `GET /status` (DECISIONS.md, Agent): `{wallet:{address, nativeBalance, lowFeeBalance}, subscription:{active,
 * tier, expiresAt}, positions[], recentCloses[], presigned:{entries, oldestAgeMs, validUntilLedger}, lastPollAt,
 * mode}`, plus `role` (`active`, or `standby` while another instance holds the wallet lock) and
 * `subscription.error` when the key could not be bought, and `refusals` (the latest ten transactions the signing rule
 * refused: `at`, `source` service|ledger, `reason`), and `rpc`: the endpoint in use and every endpoint by origin only
 * (resting and why, latest ledger seen), with what was read of the ledgers missed after the last outage.
 */
export async function statusOf(
  agent: Agent,
  subscription: Subscription,
  presigned: PresignedCache,
  store: AgentStore,
  wallet: string,
  refusals: SigningRefusals,
  ledger: LedgerView,
) {
  const { state } = agent;
  const recent = await store.audit.find({ wallet }, { sort: { field: 'recordedAtMs', direction: 'desc' }, limit: RECENT_CLOSES });
  const entries = presigned.all();
  const now = Date.now();
  const latestLedger = state.account?.latestLedger;
  const earliestEnd = entries.length ? Math.min(...entries.map((entry) => entry.signed.validUntil)) : undefined;
  return {
    wallet: {
      address: wallet,
      nativeBalance: state.account ? xlm(state.account.nativeBalance) : null,
      lowFeeBalance: state.lowFeeBalance,
    },
    subscription: subscription.view(),
    positions: state.positions,
    recentCloses: recent.map(publicAudit),
    presigned: {
      entries: entries.length,
      oldestAgeMs: entries.length ? now - Math.min(...entries.map((entry) => entry.builtAt)) : null,
      validUntilLedger:
        earliestEnd !== undefined && latestLedger
          ? latestLedger + Math.max(0, Math.floor((earliestEnd - now / 1000) / SECONDS_PER_LEDGER))
          : null,
    },
    refusals: refusals.view(),
    rpc: {
      endpoint: ledger.rpc.originInUse(),
      endpoints: ledger.rpc.endpoints(),
      lastCatchUp: ledger.catchUp.last ?? null,
    },
    lastPollAt: state.lastPollAt,
    mode: state.mode,
    role: state.role,
  };
}
