import { ArrayMaxSize, IsArray, IsString, IsUUID, MaxLength } from 'class-validator';

/** How many key ids or emails one lookup may name. */
export const ACCOUNT_OWNERS_BATCH = 200;

/**
 * Body of the subscription service's internal `POST /internal/accounts/owners` (services only, signed like every
 * internal call; never forwarded by the gateway): which accounts own these keys, and which accounts hold keys
 * bought or issued with these emails. Other services ask it once, to give records made before accounts existed the
 * account of the key that made them (ADR 015).
 */
export class AccountOwnersRequest {
  @IsArray()
  @ArrayMaxSize(ACCOUNT_OWNERS_BATCH)
  @IsUUID('all', { each: true })
  keyIds!: string[];

  /** Compared in lower case, as they were when the records named them. */
  @IsArray()
  @ArrayMaxSize(ACCOUNT_OWNERS_BATCH)
  @IsString({ each: true })
  @MaxLength(254, { each: true })
  emails!: string[];
}

export interface AccountOwners {
  /** One entry per key id asked: its account, or `null` when no such key exists. */
  keys: { keyId: string; account: string | null }[];
  /**
   * One entry per email asked (lower case): the distinct accounts of every key ever bought or issued with it,
   * revoked and expired keys included. Exactly one account proves who a record named by that email belongs to.
   */
  emails: { email: string; accounts: string[] }[];
}
