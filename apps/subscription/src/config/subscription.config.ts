import { IsContractAddress, IsLedgerAccountAddress, IsLedgerSecretSeed, LEDGER_NETWORKS } from '@rp/contracts';
import { DatabaseServiceConfig, IsDuration, IsHttpUrlList, Secret } from '@rp/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';

const daysMessage = '$property must be an integer between 1 and 3650';
const feeMessage = '$property must be an integer number of stroops between 1000 and 100000000';
const lanesMessage = '$property must be an integer between 0 and 64';

/**
 * Sells API keys over x402. Without a receiving address or a sponsor key, subscribe answers 503. It keeps keys and
 * payments in its database and uses no Redis, so a Redis outage never takes it (and key checks) out of service.
 */
export class SubscriptionConfig extends DatabaseServiceConfig {
  override PORT = 3001;

  /** Receiving G-address of subscription payments. */
  @IsOptional()
  @IsLedgerAccountAddress()
  X402_PAYMENT_ADDRESS_LEDGER?: string;

  /** Price in USD, at most 7 decimals (the stablecoin's precision); more than zero (a free key is not sold). */
  @Matches(/^(?!0+(\.0+)?$)(0|[1-9]\d{0,8})(\.\d{1,7})?$/, {
    message: '$property must be a USD amount above 0 with at most 7 decimals',
  })
  X402_SUBSCRIPTION_PRICE = '0.2026';

  @IsInt({ message: daysMessage })
  @Min(1, { message: daysMessage })
  @Max(3650, { message: daysMessage })
  X402_SUBSCRIPTION_DAYS = 30;

  @IsIn(LEDGER_NETWORKS, { message: `$property must be one of ${LEDGER_NETWORKS.join(', ')}` })
  X402_LEDGER_NETWORK = 'ledger:pubnet';

  /** Secret key of the sponsor account: source of settlement transactions, pays their fees. */
  @IsOptional()
  @IsLedgerSecretSeed()
  @Secret()
  X402_FACILITATOR_LEDGER_SECRET_KEY?: string;

  /** The Soroban RPC, or a comma-separated list tried in order (failover); shown as origins only. */
  @IsOptional()
  @IsHttpUrlList()
  CONTRACT_RPC_URL?: string;

  /** A dedicated RPC (or comma-separated list) for settlement; `CONTRACT_RPC_URL` when unset. */
  @IsOptional()
  @IsHttpUrlList()
  SUBSCRIPTION_CONTRACT_RPC_URL?: string;

  /** Stablecoin contract (C-address) payments are made in; the network's USDC when unset. */
  @IsOptional()
  @IsContractAddress()
  X402_ASSET_CONTRACT?: string;

  /** Admin key (`x-admin-key`) of the partner-key routes; they answer 503 while it is unset. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: '$property must be at least 16 characters' })
  @Secret()
  RMS_ADMIN_API_KEY?: string;

  /** How long one RPC call of settlement may take before it is retried or failed over. */
  @IsDuration(100)
  LEDGER_RPC_TIMEOUT_MS = 10_000;

  /**
   * The most the sponsor pays for one settlement, in stroops (resource fee plus inclusion fees). An honest USDC
   * transfer costs about 15,000 on the sandbox and up to about 60,000 on pubnet; a settlement that would cost more
   * (fees spiking) is refused with 503 and nothing is sent.
   */
  @IsInt({ message: feeMessage })
  @Min(1_000, { message: feeMessage })
  @Max(100_000_000, { message: feeMessage })
  X402_MAX_SETTLEMENT_FEE_STROOPS = 200_000;

  /**
   * Settlement lanes: accounts derived from the sponsor key that settlements use as their source (the sponsor
   * pays by fee bump), so this many payments can settle in one ledger (ADR 009). A lane that does not exist on
   * the ledger is not used (a warning names it: fund it with 2 XLM); with none, the sponsor settles alone.
   */
  @IsInt({ message: lanesMessage })
  @Min(0, { message: lanesMessage })
  @Max(64, { message: lanesMessage })
  X402_SETTLEMENT_LANES = 8;

  /**
   * How long a purchase waits for its settlement to be final before it answers 202 `settling` (the same payment
   * sent again then collects the key). Below the gateway's upstream timeout (30 s by default).
   */
  @IsDuration(1000)
  SETTLEMENT_TIMEOUT_MS = 20_000;

  /** How often settlements left unresolved (a crash, a 202) are looked up on the ledger and finished. */
  @IsDuration(500)
  SETTLEMENT_RECONCILE_INTERVAL_MS = 5_000;
}
