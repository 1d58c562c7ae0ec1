import { IsContractAddress, IsLedgerAccountAddress, IsLedgerSecretSeed, LEDGER_NETWORKS } from '@rp/contracts';
import { IsDuration, IsHttpUrl, Secret, StatefulServiceConfig } from '@rp/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';

const daysMessage = '$property must be an integer between 1 and 3650';

/** Sells API keys over x402. Without a receiving address or a sponsor key, subscribe answers 503. */
export class SubscriptionConfig extends StatefulServiceConfig {
  override PORT = 3001;

  /** Receiving G-address of subscription payments. */
  @IsOptional()
  @IsLedgerAccountAddress()
  X402_PAYMENT_ADDRESS_LEDGER?: string;

  /** Price in USD, at most 7 decimals (the stablecoin's precision). */
  @Matches(/^(0|[1-9]\d{0,8})(\.\d{1,7})?$/, { message: '$property must be a USD amount with at most 7 decimals' })
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

  @IsOptional()
  @IsHttpUrl()
  CONTRACT_RPC_URL?: string;

  /** A dedicated RPC for settlement; `CONTRACT_RPC_URL` when unset. */
  @IsOptional()
  @IsHttpUrl()
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
}
