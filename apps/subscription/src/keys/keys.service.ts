import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  type KeyDescription,
  type KeyIntrospection,
  type KeyTier,
  type LedgerNetwork,
  partnerAccount,
  unnamedPartnerAccount,
  walletAccount,
} from '@rp/contracts';
import { generateApiKey, hashApiKey } from './api-key';
import { type KeyRecord, KeyRepository } from './key.repository';

const DAY_MS = 86_400_000;

/** Said with every newly issued key. */
export const KEY_SHOWN_ONCE = 'Store this API key now: it is displayed only once and cannot be recovered.';

/**
 * Who a key is for, as proven: a settled payment (the key's account is the paying wallet, and it becomes the
 * payment's one live key), or an operator's partner key (the account the operator named, or the key alone).
 */
export type KeyOwner = { kind: 'payment'; paymentId: string; payer: string } | { kind: 'partner'; name: string | null };

export interface KeyIssue {
  network: LedgerNetwork;
  tier: KeyTier;
  rateLimit: number;
  burst: number;
  durationDays: number;
  /** Start of validity: the payment's time for paid keys. */
  from: Date;
  email: string;
  projectName: string | null;
  owner: KeyOwner;
}

/** Issues, resolves and revokes API keys. The plain key leaves this class once, in `issue`'s answer. */
@Injectable()
export class KeysService {
  private readonly logger = new Logger(KeysService.name);

  constructor(private readonly keys: KeyRepository) {}

  /**
   * Issues a key. A bought key is its payment's live key: `LiveKeyExistsError` when the payment has one already
   * (revoke it first; two requests collecting one payment at once: one wins, the other gets the error).
   */
  async issue(request: KeyIssue): Promise<{ apiKey: string; record: KeyRecord }> {
    const apiKey = generateApiKey(request.network);
    const id = randomUUID();
    const { owner } = request;
    const record = await this.keys.insert({
      id,
      hash: hashApiKey(apiKey),
      prefix: apiKey.slice(0, 12),
      tier: request.tier,
      rateLimit: request.rateLimit,
      burst: request.burst,
      email: request.email,
      emailKey: request.email.toLowerCase(),
      account: accountOf(owner, id),
      projectName: request.projectName,
      paymentId: owner.kind === 'payment' ? owner.paymentId : null,
      ...(owner.kind === 'payment' && { livePaymentId: owner.paymentId }),
      createdAt: new Date(),
      expiresAt: new Date(request.from.getTime() + request.durationDays * DAY_MS),
    });
    this.logger.log({ keyId: record.id, tier: record.tier, prefix: record.prefix }, 'API key issued');
    return { apiKey, record };
  }

  /** What the gateway needs to admit a call made with `apiKey`. */
  async introspect(apiKey: string, now = new Date()): Promise<KeyIntrospection> {
    const state = keyState(await this.keys.findByHash(hashApiKey(apiKey)), now);
    if (state.usable) return { active: true, ...describeKey(state.record) };
    return state.reason === 'expired'
      ? { active: false, reason: 'expired', expiresAt: state.record.expiresAt.toISOString() }
      : { active: false, reason: state.reason };
  }

  /** The state of a key known by its id (the caller the gateway vouched for). */
  async stateOf(keyId: string, now = new Date()): Promise<KeyState> {
    return keyState(await this.keys.findById(keyId), now);
  }

  /** Revokes the keys a payment issued before (a buyer collecting its key again gets a fresh one). */
  async revokeForPayment(paymentId: string): Promise<void> {
    const revoked = await this.keys.revokeForPayment(paymentId, new Date());
    if (revoked > 0) this.logger.log({ paymentId, revoked }, 'keys of a collected payment revoked');
  }

  async revoke(keyId: string): Promise<KeyRecord | null> {
    const record = await this.keys.revoke(keyId, new Date());
    if (record) this.logger.log({ keyId, prefix: record.prefix }, 'API key revoked');
    return record;
  }
}

export type KeyState =
  | { usable: true; record: KeyRecord }
  | { usable: false; reason: 'expired'; record: KeyRecord }
  | { usable: false; reason: 'unknown' | 'revoked' };

/** The one place that decides whether a stored key may be used now. */
function keyState(record: KeyRecord | null, now: Date): KeyState {
  if (!record) return { usable: false, reason: 'unknown' };
  if (record.revokedAt) return { usable: false, reason: 'revoked' };
  if (record.expiresAt.getTime() <= now.getTime()) return { usable: false, reason: 'expired', record };
  return { usable: true, record };
}

export function describeKey(record: KeyRecord): KeyDescription {
  return {
    keyId: record.id,
    tier: record.tier,
    rateLimit: record.rateLimit,
    burst: record.burst,
    expiresAt: record.expiresAt.toISOString(),
    email: record.email,
    account: record.account,
  };
}

function accountOf(owner: KeyOwner, keyId: string): string {
  if (owner.kind === 'payment') return walletAccount(owner.payer);
  return owner.name ? partnerAccount(owner.name) : unnamedPartnerAccount(keyId);
}
