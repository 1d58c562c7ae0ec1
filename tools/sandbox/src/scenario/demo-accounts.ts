import { Keypair, hash } from '@stellar/stellar-sdk';

/**
 * Fixed keys and mnemonics of the demo scenario. They hold sandbox money only and are printed on purpose, so a
 * newcomer can sign with them; never use them anywhere else.
 */
function derivedKeypair(label: string): Keypair {
  return Keypair.fromRawEd25519Seed(hash(Buffer.from(`rp-sandbox:demo:${label}`)));
}

const sponsor = derivedKeypair('x402-sponsor');
const paymentReceiver = derivedKeypair('x402-payment-receiver');
const liquidityProvider = derivedKeypair('liquidity-provider');

/**
 * Settlement lanes of the demo sponsor the scenario funds: the subscription service settles up to this many
 * payments in one ledger (X402_SETTLEMENT_LANES under `npm start`).
 */
export const DEMO_SETTLEMENT_LANES = 8;

export const DEMO_ACCOUNTS = {
  /** Pays the fees of subscription payments (X402_FACILITATOR_LEDGER_SECRET_KEY). */
  sponsor: { address: sponsor.publicKey(), secret: sponsor.secret() },
  /** Receives subscription payments (X402_PAYMENT_ADDRESS_LEDGER). */
  paymentReceiver: { address: paymentReceiver.publicKey() },
  liquidityProvider: { address: liquidityProvider.publicKey() },
} as const;

/** Demo wallets (SEP-5 mnemonics from the SEP's own test vectors). The endangered one is the demo agent's. */
export const DEMO_WALLETS = {
  healthy: {
    label: 'demo wallet (healthy)',
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  },
  endangered: {
    label: 'demo wallet (near danger, run by the demo agent)',
    mnemonic: 'illness spike retreat truth genius clock brain pass fit cave bargain toe',
  },
} as const;
