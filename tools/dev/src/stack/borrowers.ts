import { type LoadedScenario, type RunningSandbox, UNIT } from '@rp/sandbox';
import { Address, nativeToScVal } from '@stellar/stellar-sdk';

export interface BorrowerPosition {
  /** XLM collateral supplied to the demo pool. */
  xlm: bigint;
  /** USDC borrowed from it. */
  usdc: bigint;
  /** USDC the wallet still holds of what it borrowed (the rest was spent elsewhere); all of it by default. */
  keepUsdc?: bigint;
  /** USDC minted to the wallet besides. */
  extraUsdc?: bigint;
}

/** Funds `address` with 100 XLM for fees and opens its position in the demo pool (XLM collateral, USDC debt). */
export function openBorrower(
  sandbox: RunningSandbox,
  address: string,
  label: string,
  position: BorrowerPosition,
): void {
  const scenario = sandbox.scenario as LoadedScenario;
  const setup = sandbox.control.setup;
  setup.fund(address, 100n * UNIT, label);
  setup.openPosition(scenario.pool, {
    user: address,
    supplyCollateral: [{ asset: scenario.xlm, amount: position.xlm }],
    ...(position.usdc > 0n && { borrow: [{ asset: scenario.usdc, amount: position.usdc }] }),
  });
  const held = setup.balance(scenario.usdc, address);
  const keep = position.keepUsdc ?? held;
  if (held > keep) {
    // Spent elsewhere: the wallet no longer holds what it borrowed.
    sandbox.ledger.invokePrivileged(scenario.usdc, 'transfer', [
      new Address(address).toScVal(),
      new Address(scenario.paymentReceiver).toScVal(),
      nativeToScVal(held - keep, { type: 'i128' }),
    ]);
  }
  if (position.extraUsdc) setup.mint(scenario.usdc, address, position.extraUsdc);
}
