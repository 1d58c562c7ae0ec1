import { Account, Keypair, Networks, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { REQUEST_TYPES, type Positions, type Request } from '../blend/layouts';
import { toBTokenDown, toDTokenUp } from '../blend/math';
import {
  poolFlashLoanOperation,
  poolSubmitOperation,
  poolSubmitWithAllowanceOperation,
} from '../blend/pool-operations';
import { type RescuePlan, deleteAuctionRequest, planRescue } from '../blend/rescue-planner';
import { fixtureContract, threeReservePool } from '../blend/test-fixtures';
import type { UnwindPosition } from '../blend/unwind-planner';
import { type CloseSigningContext, verifyCloseTransaction } from './close-signing-rule';

/** The signing rule on rescues (issue 19 §5, docs/adr/027-auction-rescue.md): request 9 only for the wallet itself. */

const { usdc: USDC, xlm: XLM, eurc: EURC, reserves: RESERVES, prices: PRICES } = threeReservePool();
const POOL = fixtureContract(5);
const RECEIVER = fixtureContract(9);
const WALLET = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const STRANGER = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).publicKey();
const UNIT = 10_000_000n;
const NOW = 1_800_000_000;
const TARGET = 11_000_000n;

/** 10,000 XLM of collateral and 2,200 USDC of debt: health factor ~0.97, an auction's prey. */
const positions: Positions = {
  collateral: new Map([[1, toBTokenDown(RESERVES[1], 10_000n * UNIT)]]),
  liabilities: new Map([[0, toDTokenUp(RESERVES[0], 2_200n * UNIT)]]),
  supply: new Map(),
};
const POSITION: UnwindPosition = { reserves: RESERVES, positions, prices: PRICES };

const CONTEXT: CloseSigningContext = {
  wallet: WALLET,
  passphrase: Networks.TESTNET,
  accountSequence: '100',
  nowSeconds: NOW,
  horizonSeconds: 600,
  maxFeeStroops: 100_000_000n,
  pool: POOL,
  poolTrusted: true,
  receiver: RECEIVER,
  position: POSITION,
  slippageBps: 100,
  latestLedger: 5_000,
  approvalLedgers: 360,
  rescue: { targetHealthFactor: TARGET },
};

const rescueOf = (balances: [string, bigint][]) =>
  planRescue(
    POSITION,
    { balances: new Map(balances) },
    { wallet: WALLET, slippageBps: 100, target: TARGET, poolStatus: 1 },
  ) as RescuePlan;
const REPAY_RESCUE = rescueOf([[USDC, 1_000n * UNIT]]);
const SUPPLY_RESCUE = rescueOf([[EURC, 5_000n * UNIT]]);

function envelope(operation: xdr.Operation): string {
  return new TransactionBuilder(new Account(WALLET, '100'), { fee: '50000', networkPassphrase: Networks.TESTNET })
    .addOperation(operation)
    .setTimebounds(0, NOW + 300)
    .build()
    .toXDR();
}
const submit = (requests: readonly Request[]) => envelope(poolSubmitOperation(POOL, WALLET, requests));
const verdict = (transaction: string, context: Partial<CloseSigningContext> = {}) =>
  verifyCloseTransaction(transaction, { ...CONTEXT, ...context });
const DELETE = deleteAuctionRequest(WALLET);

describe('the signing rule on a rescue', () => {
  it('plans the rescues the tests rely on', () => {
    expect(REPAY_RESCUE.levers.map((lever) => lever.requestType)).toEqual([REQUEST_TYPES.Repay]);
    expect(SUPPLY_RESCUE.levers.map((lever) => lever.requestType)).toEqual([REQUEST_TYPES.SupplyCollateral]);
  });

  it.each([
    ['a repay plus request 9', REPAY_RESCUE.requests],
    ['collateral plus request 9', SUPPLY_RESCUE.requests],
    ['request 9 alone (the position recovered)', [DELETE]],
  ])('signs %s for the wallet when an auction against it was seen', (_name, requests) => {
    expect(verdict(submit(requests))).toEqual({ ok: true });
  });

  it('refuses request 9 when no auction against the wallet was seen', () => {
    expect(verdict(submit(REPAY_RESCUE.requests), { rescue: undefined })).toMatchObject({
      ok: false,
      reason: 'wrong_request_type',
    });
  });

  it("refuses a request 9 for another user's auction", () => {
    const foreign = [
      ...REPAY_RESCUE.levers.map((l) => ({ requestType: l.requestType, address: l.asset, amount: l.amount })),
      deleteAuctionRequest(STRANGER),
    ];
    expect(verdict(submit(foreign))).toMatchObject({ ok: false, reason: 'wrong_address' });
  });

  it('refuses a fill (request 6) of any auction, in a rescue or not', () => {
    const fill = { requestType: REQUEST_TYPES.FillUserLiquidationAuction, address: STRANGER, amount: 100n };
    expect(verdict(submit([fill]))).toMatchObject({ ok: false, reason: 'wrong_request_type' });
    expect(verdict(submit([fill, DELETE]))).toMatchObject({ ok: false, reason: 'wrong_request_type' });
    const ownFill = { ...fill, address: WALLET };
    expect(verdict(submit([ownFill, DELETE]))).toMatchObject({ ok: false, reason: 'wrong_request_type' });
  });

  it('refuses collateral supplied outside a rescue', () => {
    expect(verdict(submit(SUPPLY_RESCUE.requests.slice(0, 1)))).toMatchObject({
      ok: false,
      reason: 'wrong_request_type',
    });
  });

  it('refuses collateral beyond what reaches the target, and a supply of a token the wallet owes', () => {
    const [supply] = SUPPLY_RESCUE.levers;
    const more = { requestType: supply.requestType, address: supply.asset, amount: supply.amount * 2n };
    expect(verdict(submit([more, DELETE]))).toMatchObject({ ok: false, reason: 'amount_above_position' });
    const owed = { requestType: REQUEST_TYPES.SupplyCollateral, address: USDC, amount: UNIT };
    expect(verdict(submit([owed, DELETE]))).toMatchObject({ ok: false, reason: 'amount_above_position' });
  });

  it("signs the collateral a pool's minimum asks for (the position the rule reads carries it), not more", () => {
    const guarded: UnwindPosition = { ...POSITION, minCollateral: 3_000n * UNIT };
    const plan = planRescue(
      guarded,
      { balances: new Map([[EURC, 5_000n * UNIT]]) },
      {
        wallet: WALLET,
        slippageBps: 100,
        target: TARGET,
        poolStatus: 1,
      },
    ) as RescuePlan;
    expect(plan.levers[0].amount).toBeGreaterThan(SUPPLY_RESCUE.levers[0].amount * 2n);
    expect(verdict(submit(plan.requests), { position: guarded })).toEqual({ ok: true });
    // The same transaction, read against a pool without the minimum, supplies more than the target needs.
    expect(verdict(submit(plan.requests))).toMatchObject({ ok: false, reason: 'amount_above_position' });
    const [supply] = plan.levers;
    const more = { requestType: supply.requestType, address: supply.asset, amount: supply.amount * 2n };
    expect(verdict(submit([more, DELETE]), { position: guarded })).toMatchObject({
      ok: false,
      reason: 'amount_above_position',
    });
  });

  it('signs a close during an auction (an unwind carrying request 9, flash loan included), bounded as any close', () => {
    const repay = { requestType: REQUEST_TYPES.Repay, address: USDC, amount: 1_000n * UNIT };
    const withdraw = { requestType: REQUEST_TYPES.WithdrawCollateral, address: XLM, amount: 2_000n * UNIT };
    expect(verdict(envelope(poolSubmitWithAllowanceOperation(POOL, WALLET, [repay, withdraw, DELETE])))).toEqual({
      ok: true,
    });
    const loan = { contract: RECEIVER, asset: XLM, amount: UNIT };
    expect(verdict(envelope(poolFlashLoanOperation(POOL, WALLET, loan, [DELETE])))).toEqual({ ok: true });
    const tooMuch = { ...withdraw, amount: 20_000n * UNIT };
    expect(verdict(submit([tooMuch, DELETE]))).toMatchObject({ ok: false, reason: 'amount_above_position' });
    expect(
      verdict(envelope(poolFlashLoanOperation(POOL, WALLET, loan, [DELETE])), { rescue: undefined }),
    ).toMatchObject({
      ok: false,
      reason: 'wrong_request_type',
    });
  });
});
