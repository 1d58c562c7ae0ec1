import type { RiskPositionView } from '@rp/contracts';
import {
  type Collection,
  type DocumentStore,
  describeTarget,
  openDocumentStore,
  parseDatabaseUrl,
} from '@rp/persistence-store';

/** The agent's API key, sealed (see KeyVault); one per wallet. */
export interface StoredKey {
  id: string;
  sealedKey: string;
  tier: string;
  rateLimit: number;
  expiresAt: string;
  purchasedAt: string;
  txHash: string;
  /** When the owner was told this key lapsed (once per key). */
  lapsedAt?: string;
}

export type CloseOutcome = 'submitted' | 'confirmed' | 'failed' | 'skipped';

/** Who built a close, and where a risk snapshot came from: the service, the agent from the ledger, or the mock. */
export type CloseSource = 'service' | 'ledger' | 'mock';

export type SnapshotPosition = Pick<
  RiskPositionView,
  'poolAddress' | 'healthFactor' | 'riskLevel' | 'collateralValueUsd' | 'liabilityValueUsd'
> & {
  /** A user liquidation auction runs against the wallet in the pool: the agent rescues it (ADR 027). */
  auction?: boolean;
};

/** Positions and prices when the agent decided to close (DECISIONS.md, Agent: audit record). */
export interface RiskSnapshot {
  positions: SnapshotPosition[];
  /** Asset -> oracle price as a decimal string; the pool's oracle, read at `ledger`. */
  prices: Record<string, string>;
  ledger: number | null;
  source: CloseSource;
}

/**
 * One close attempt. `settledAt` is ISO 8601, null until the outcome is final. The public `decidedAt` is derived from
 * `decidedAtMs` (`decidedAtOf`); records written before it was derived still carry their own, which is the same.
 */
/** What became of one transaction of a close (docs/agent.md, Re-pricing). */
export type AttemptOutcome = 'sent' | 'included' | 'not_included' | 'failed' | 'expired';

/** One transaction sent for a close: its inclusion fee bid (stroops), when it was sent, its hash and outcome. */
export interface CloseAttempt {
  fee: string;
  at: string;
  txHash: string;
  outcome: AttemptOutcome;
  error?: string;
}

export interface AuditRecord {
  id: string;
  wallet: string;
  poolAddress: string;
  riskSnapshot: RiskSnapshot;
  txHash: string | null;
  outcome: CloseOutcome;
  error?: string;
  settledAt: string | null;
  /** When the agent decided (ms since the epoch): the cooldown's query and the public `decidedAt`. */
  decidedAtMs: number;
  /** Internal: when this attempt was recorded (one decision may make several attempts); newest first in /status. */
  recordedAtMs: number;
  /** Internal: unix seconds after which the transaction can no longer be included. */
  validUntil: number;
  /** Internal: how the close was made: `presigned` or `rebuilt`, and who built it. */
  path: 'presigned' | 'rebuilt';
  builtBy: CloseSource;
  /** Every transaction sent for this close, oldest first: the first, then each re-priced one (`txHash` is the newest). */
  attempts?: CloseAttempt[];
}

/** The decision's time as ISO 8601 (`/status`, the owner's reports). */
export function decidedAtOf(record: Pick<AuditRecord, 'decidedAtMs'>): string {
  return new Date(record.decidedAtMs).toISOString();
}

export interface Lease {
  id: string;
  holder: string;
  until: number;
}

/**
 * A payment the agent signed for its key (issue 17): kept sealed and sent again, identical, until it is collected or
 * its authorization expires. Every one counts toward `SERVICE_MAX_SPEND_30D` from the moment it is signed: whoever
 * holds it could settle it until it expires.
 */
export interface StoredPayment {
  id: string;
  wallet: string;
  /** The payment headers, sealed like the key (`KeyVault`). */
  sealedPayment: string;
  /** Base units of `asset`. */
  amount: string;
  asset: string;
  payTo: string;
  network: string;
  authExpiresLedger: number;
  signedAt: string;
  signedAtMs: number;
  /** `signed`: sent or about to be, not collected; `granted`: it bought a key; `refused`: the service did not take it (not sent again); `expired`: its authorization passed without a key. */
  state: 'signed' | 'granted' | 'refused' | 'expired';
  /** The service's last answer about it. */
  lastAnswer?: string;
  txHash?: string;
}

/** One event for the wallet's owner, waiting in the outbox until the service has taken it (issue 17). */
export interface StoredOwnerEvent {
  id: string;
  wallet: string;
  type: string;
  /** The event's fields as sent (`AccountEventRequest` without `eventId`, `walletAddress`). */
  fields: Record<string, string | number | null>;
  occurredAt: string;
  createdAtMs: number;
  state: 'pending' | 'delivered' | 'rejected';
  attempts: number;
  lastError?: string;
  deliveredAt?: string;
}

export interface AgentStore {
  readonly description: string;
  readonly keys: Collection<StoredKey>;
  readonly audit: Collection<AuditRecord>;
  readonly leases: Collection<Lease>;
  readonly payments: Collection<StoredPayment>;
  readonly ownerEvents: Collection<StoredOwnerEvent>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the agent's database: `DATABASE_*` when configured, else the embedded SQLite file `.data/agent.sqlite`. */
export async function openAgentStore(url: string | undefined): Promise<AgentStore> {
  const target = parseDatabaseUrl(url, 'agent');
  const store: DocumentStore = await openDocumentStore(target);
  const [keys, audit, leases] = await Promise.all([
    store.collection<StoredKey>({ name: 'agent_keys' }),
    store.collection<AuditRecord>({ name: 'agent_audit' }),
    store.collection<Lease>({ name: 'agent_leases' }),
  ]);
  const [payments, ownerEvents] = await Promise.all([
    store.collection<StoredPayment>({ name: 'agent_payments' }),
    store.collection<StoredOwnerEvent>({ name: 'agent_owner_events' }),
  ]);
  return {
    description: describeTarget(target),
    keys,
    audit,
    leases,
    payments,
    ownerEvents,
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
