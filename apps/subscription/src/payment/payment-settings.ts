import { CAIP2_NETWORK, type LedgerNetwork } from '@rp/contracts';
import {
  type LedgerKeypair,
  baseUnitsToUsd,
  keypairFromSecret,
  networkPassphrase,
  settlementLanes,
  usdToBaseUnits,
  usdcContract,
} from '@rp/ledger';
import type { SubscriptionConfig } from '../config/subscription.config';

/** Public testnet RPC, used when no `CONTRACT_RPC_URL` is set on testnet; pubnet has no default. */
const TESTNET_RPC = 'https://soroban-testnet.stellar.org';

/** Seconds a payment authorization may live (DECISIONS.md, Subscription). */
export const MAX_TIMEOUT_SECONDS = 600;

/** Everything a payment needs, resolved once from the settings; `undefined` when payment is not configured. */
export interface PaymentSettings {
  network: LedgerNetwork;
  caip2: string;
  passphrase: string;
  payTo: string;
  asset: string;
  /** Price in the asset's base units (7 decimals). */
  amount: bigint;
  priceUsd: string;
  durationDays: number;
  sponsor: LedgerKeypair;
  /** The sponsor and its settlement lanes: never a payer, a source or an authorizer of a payment. */
  sponsorAccounts: ReadonlySet<string>;
  rpcUrl: string;
  rpcTimeoutMs: number;
  /** The most the sponsor pays for one settlement, in stroops. */
  maxSettlementFee: bigint;
  /** How many settlement lanes (derived from the sponsor) may be used. */
  settlementLanes: number;
  /** How long a purchase waits for its settlement before it answers 202. */
  settlementTimeoutMs: number;
  reconcileIntervalMs: number;
}

// The USD conversions live in @rp/ledger (the agent's purchase limits use them too).
export { baseUnitsToUsd, usdToBaseUnits };

export function resolvePaymentSettings(config: SubscriptionConfig): PaymentSettings | undefined {
  const network = config.X402_LEDGER_NETWORK as LedgerNetwork;
  const rpcUrl =
    config.SUBSCRIPTION_CONTRACT_RPC_URL ??
    config.CONTRACT_RPC_URL ??
    (network === 'ledger:testnet' ? TESTNET_RPC : undefined);
  if (!config.X402_PAYMENT_ADDRESS_LEDGER || !config.X402_FACILITATOR_LEDGER_SECRET_KEY || !rpcUrl) return undefined;
  const amount = usdToBaseUnits(config.X402_SUBSCRIPTION_PRICE);
  const sponsor = keypairFromSecret(config.X402_FACILITATOR_LEDGER_SECRET_KEY);
  const lanes = settlementLanes(sponsor, config.X402_SETTLEMENT_LANES);
  return {
    network,
    caip2: CAIP2_NETWORK[network],
    passphrase: networkPassphrase(network),
    payTo: config.X402_PAYMENT_ADDRESS_LEDGER,
    asset: config.X402_ASSET_CONTRACT ?? usdcContract(network),
    amount,
    priceUsd: baseUnitsToUsd(amount),
    durationDays: config.X402_SUBSCRIPTION_DAYS,
    sponsor,
    sponsorAccounts: new Set([sponsor, ...lanes].map((key) => key.publicKey())),
    rpcUrl,
    rpcTimeoutMs: config.LEDGER_RPC_TIMEOUT_MS,
    maxSettlementFee: BigInt(config.X402_MAX_SETTLEMENT_FEE_STROOPS),
    settlementLanes: config.X402_SETTLEMENT_LANES,
    settlementTimeoutMs: config.SETTLEMENT_TIMEOUT_MS,
    reconcileIntervalMs: config.SETTLEMENT_RECONCILE_INTERVAL_MS,
  };
}
