import { Keypair } from '@stellar/stellar-sdk';
import { LedgerWallet, settlementLanes, usdcContract } from '@rp/ledger';
import { SandboxSetup, UNIT } from '../control/sandbox-setup';
import { DEMO_ACCOUNTS, DEMO_SETTLEMENT_LANES, DEMO_WALLETS } from './demo-accounts';

export interface DemoWallet {
  /** `endangered` is the wallet the demo agent runs under `npm start`. */
  readonly key: keyof typeof DEMO_WALLETS;
  readonly label: string;

  readonly mnemonic: string;
  readonly address: string;
}

export interface LoadedScenario {
  readonly name: 'demo';
  readonly usdc: string;
  readonly xlm: string;
  readonly oracle: string;
  readonly pool: string;
  readonly swapReceiver: string;
  /** The Blend pool factory stand-in that knows `pool` (BLEND_POOL_FACTORY for agents). */
  readonly poolFactory: string;
  readonly sponsor: { readonly address: string; readonly secret: string };
  readonly paymentReceiver: string;
  /** How many settlement lanes of the sponsor are funded. */
  readonly settlementLanes: number;
  readonly wallets: readonly DemoWallet[];
}

/** Oracle prices of the demo, 7 decimals: USDC at $1.00, XLM at $0.30. */
export const DEMO_PRICES = { usdc: 10_000_000n, xlm: 3_000_000n } as const;

/**
 * The demo world `npm start` opens on: USDC (at testnet USDC's own address, so services use their default asset)
 * and an XLM token priced by an oracle, one Blend pool with both reserves and deep liquidity, a funded fee
 * sponsor and payment receiver for subscriptions, a swap receiver for unwinds, and two wallets with positions:
 * one healthy (health factor about 2.1) and one near danger (about 1.12, risk level high).
 */
export function loadDemoScenario(setup: SandboxSetup): LoadedScenario {
  setup.fund(DEMO_ACCOUNTS.sponsor.address, 10_000n * UNIT, 'x402 fee sponsor');
  // Sequence sources of the sponsor's settlements; they pay no fees (the sponsor bumps them), so the minimum will do.
  settlementLanes(Keypair.fromSecret(DEMO_ACCOUNTS.sponsor.secret), DEMO_SETTLEMENT_LANES).forEach((lane, index) =>
    setup.fund(lane.publicKey(), 2n * UNIT, `x402 settlement lane ${index}`),
  );
  setup.fund(DEMO_ACCOUNTS.paymentReceiver.address, 10n * UNIT, 'subscription payment receiver');
  setup.fund(DEMO_ACCOUNTS.liquidityProvider.address, 100n * UNIT, 'pool liquidity provider');

  const usdc = setup.deployToken('USDC', { name: 'USD Coin', address: usdcContract('ledger:testnet') });
  const xlm = setup.deployToken('XLM', { name: 'Stellar Lumens (sandbox token)' });
  const oracle = setup.deployOracle({ salt: 'demo-oracle' });
  setup.setPrice(oracle, usdc, DEMO_PRICES.usdc);
  setup.setPrice(oracle, xlm, DEMO_PRICES.xlm);

  const pool = setup.deployPool('Demo Pool', oracle);
  setup.addReserve(pool, usdc, { cFactor: 9_500_000, lFactor: 9_500_000 });
  setup.addReserve(pool, xlm, { cFactor: 7_500_000, lFactor: 7_500_000 });
  setup.openPosition(pool, {
    user: DEMO_ACCOUNTS.liquidityProvider.address,
    supply: [
      { asset: usdc, amount: 1_000_000n * UNIT },
      { asset: xlm, amount: 1_000_000n * UNIT },
    ],
  });

  const swapReceiver = setup.deploySwapReceiver(oracle, 30, [
    [xlm, usdc],
    [usdc, xlm],
  ]);
  setup.mint(usdc, swapReceiver, 1_000_000n * UNIT);
  setup.mint(xlm, swapReceiver, 1_000_000n * UNIT);

  const debts = { healthy: 1_000n * UNIT, endangered: 1_900n * UNIT };
  const wallets = (Object.keys(DEMO_WALLETS) as (keyof typeof DEMO_WALLETS)[]).map((key) => {
    const { label, mnemonic } = DEMO_WALLETS[key];
    const address = LedgerWallet.fromMnemonic(mnemonic).address;
    setup.fund(address, 1_000n * UNIT, label);
    setup.directory.accounts[setup.directory.accounts.length - 1] = { label, address, demoMnemonic: mnemonic };
    setup.mint(usdc, address, 100n * UNIT);
    setup.openPosition(pool, {
      user: address,
      supplyCollateral: [{ asset: xlm, amount: 10_000n * UNIT }],
      borrow: [{ asset: usdc, amount: debts[key] }],
    });
    return { key, label, mnemonic, address };
  });

  return {
    name: 'demo',
    usdc,
    xlm,
    oracle,
    pool,
    swapReceiver,
    poolFactory: setup.poolFactory(),
    sponsor: DEMO_ACCOUNTS.sponsor,
    paymentReceiver: DEMO_ACCOUNTS.paymentReceiver.address,
    settlementLanes: DEMO_SETTLEMENT_LANES,
    wallets,
  };
}
