import { randomInt } from 'node:crypto';
import type { BuiltTransaction, ProposalMetadata, ProposalStatus, ProposalView, TxbAction } from '@rp/contracts';

/** Why a proposal failed: it expired unsubmitted, or the network refused or failed its transaction. */
export interface ProposalFailure {
  reason: 'expired' | 'rejected' | 'failed';
  resultCode?: string;
  contractError?: { code: number; name?: string };
}

/** A proposal as stored: what the build answered, whose it is, and how far its transaction got. */
export interface ProposalRecord {
  id: string;
  /**
   * The account of the API key that built it (`wallet:<G...>`, `partner:<name>`, as the gateway signed it): only that
   * account's keys may list or submit the proposal. Proposals built before accounts held the key id (ADR 015).
   */
  accountId: string;
  walletAddress: string;
  action: TxbAction;
  status: ProposalStatus;
  /** Unix milliseconds. */
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
  /** Network hash of the transaction (hex); a signed copy has the same hash. */
  hash: string;
  transaction: BuiltTransaction;
  metadata: ProposalMetadata;
  signedXdr?: string;
  /** The allowed RPC the caller named on submit; the tracker follows the transaction there. */
  rpcUrl?: string;
  txHash?: string;
  submittedAt?: number;
  /** Last time the signed envelope was sent (submit or a tracker resend). */
  lastSentAt?: number;
  /** A resend the network refused (`ERROR`): failed only if the ledger still shows nothing a while later. */
  rejectedAt?: number;
  rejection?: ProposalFailure;
  ledger?: number;
  failure?: ProposalFailure;
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `txp-<millisecond timestamp>-<6 base36 characters>` (DECISIONS.md). */
export function newProposalId(now: number): string {
  let suffix = '';
  for (let i = 0; i < 6; i += 1) suffix += BASE36[randomInt(36)];
  return `txp-${now}-${suffix}`;
}

export const PROPOSAL_ID_PATTERN = /^txp-\d{13,}-[0-9a-z]{6}$/;

/** What a caller sees of a proposal. */
export function viewOf(record: ProposalRecord): ProposalView {
  return {
    id: record.id,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    expiresAt: new Date(record.expiresAt).toISOString(),
    transaction: record.transaction,
    metadata: record.metadata,
    ...(record.txHash && { txHash: record.txHash }),
    ...(record.ledger !== undefined && { ledger: record.ledger }),
    ...(record.failure && { failure: record.failure }),
  };
}
