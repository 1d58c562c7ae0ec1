import { IsContractAddress } from '@rp/contracts';
import { IsDuration, IsHttpUrl, IsHttpUrlList, ServiceConfig } from '@rp/platform';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';

/** Builds REPAY / LIQUIDATE / UNWIND transactions, keeps proposals in Redis, submits and tracks them. */
export class TxbConfig extends ServiceConfig {
  override PORT = 3002;

  /** The Soroban RPC, or a comma-separated list tried in order (failover); shown as origins only. */
  @IsOptional()
  @IsHttpUrlList()
  CONTRACT_RPC_URL?: string;

  /** Lifetime of a proposal; its transaction's time bounds end with it. */
  @IsDuration(30)
  PROPOSAL_TTL_SECONDS = 300;

  /**
   * The most a built transaction bids for inclusion, stroops per operation (the simulated resource fee comes on top).
   * 0.1 XLM: a thousand times the minimum, room for surge pricing; a busier network gets this bid (and the
   * `NETWORK_CONGESTED` warning). At most 1 000 000 000, leaving room for resources in the 32-bit fee field.
   */
  @IsInt({ message: '$property must be a whole number of stroops between 100 and 1000000000' })
  @Min(100, { message: '$property must be a whole number of stroops between 100 and 1000000000' })
  @Max(1_000_000_000, { message: '$property must be a whole number of stroops between 100 and 1000000000' })
  TXB_MAX_INCLUSION_FEE_STROOPS = 1_000_000;

  /** RPC URLs a caller may name in `submit` (never an arbitrary URL). */
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { each: true, message: '$property must be a comma-separated list of http(s) URLs' },
  )
  TXB_ALLOWED_RPC_URLS: string[] = [];

  /**
   * The subscription service (its internal `/internal/accounts/owners`): asked at start which accounts own the
   * proposals built before accounts existed (they held the key id; ADR 015). Only when there are such proposals.
   */
  @IsHttpUrl()
  SUBSCRIPTION_URL = 'http://127.0.0.1:3001';

  /** Flash-loan receiver contract (swap/multicall router) used by UNWIND. */
  @IsOptional()
  @IsContractAddress()
  TXB_UNWIND_RECEIVER?: string;
}
