import { Address, FeeBumpTransaction, type Transaction, TransactionBuilder, scValToNative, type xdr } from '@stellar/stellar-sdk';
import { type FlashLoan, REQUEST_TYPES, type Request, decodeFlashLoan, decodeRequest } from '../blend/layouts';
import { BPS_SCALE, withSlippage } from '../blend/position-requests';
import { isRescueRefusal, planRescue } from '../blend/rescue-planner';
import { type UnwindPosition, holdingsOf } from '../blend/unwind-planner';
import { APPROVAL_MARGIN_BPS } from '../blend/unwind-route';
import { type AuthorizedTreeRefusal, checkAuthorizations } from './authorization-tree';

/**
 * The rule every transaction the agent signs must pass (issue 17 §1, docs/adr/016-agent-signing-rule.md): a close
 * (or the approval it needs) the agent would have built itself, whoever built it. Pure: the caller reads the ledger
 * (position, sequence, latest ledger) and resolves whether the pool is trusted before asking.
 */

export type SigningRefusalReason =
  | 'malformed_transaction'
  | 'fee_bump'
  | 'wrong_source'
  | 'wrong_sequence'
  | 'memo'
  | 'not_one_invocation'
  | 'fee_above_cap'
  | 'no_time_bound'
  | 'time_bound_too_far'
  | 'unknown_pool'
  | 'wrong_function'
  | 'malformed_arguments'
  | 'wrong_address'
  | 'wrong_request_type'
  | 'foreign_reserve'
  | 'amount_above_position'
  | 'unknown_receiver'
  | 'wrong_spender'
  | 'approval_above_pull'
  | 'approval_too_long'
  | AuthorizedTreeRefusal;

/** Every reason code, for documentation, metrics and tests. */
export const SIGNING_REFUSAL_REASONS: readonly SigningRefusalReason[] = [
  'malformed_transaction',
  'fee_bump',
  'wrong_source',
  'wrong_sequence',
  'memo',
  'not_one_invocation',
  'fee_above_cap',
  'no_time_bound',
  'time_bound_too_far',
  'unknown_pool',
  'wrong_function',
  'malformed_arguments',
  'wrong_address',
  'wrong_request_type',
  'foreign_reserve',
  'amount_above_position',
  'unknown_receiver',
  'wrong_spender',
  'approval_above_pull',
  'approval_too_long',
  'auth_root_mismatch',
  'auth_moves_funds',
];

export type SigningVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: SigningRefusalReason; readonly detail: string };

export interface CloseSigningContext {
  /** The wallet (G-address) that signs: the transaction's source and every from/spender/to. */
  readonly wallet: string;
  readonly passphrase: string;
  /** The account's current sequence number on the ledger: the transaction must use the next one. */
  readonly accountSequence: string;
  /** Unix seconds now. */
  readonly nowSeconds: number;
  /** The transaction's upper time bound may be at most this many seconds ahead. */
  readonly horizonSeconds: number;
  /** Total fee cap in stroops (inclusion plus resources): `MAX_CLOSE_FEE_STROOPS`. */
  readonly maxFeeStroops: bigint;
  /** The pool being closed (the one whose position was read). */
  readonly pool: string;
  /** Whether `pool` is listed in `WATCHED_POOLS` or confirmed by the Blend pool factory's `is_pool`. */
  readonly poolTrusted: boolean;
  /** The operator's `UNWIND_RECEIVER`; a flash loan through any other receiver is refused. */
  readonly receiver: string | undefined;
  /** The pool's reserves and the wallet's position in it, read from the ledger. */
  readonly position: UnwindPosition;
  readonly slippageBps: number;
  /** The latest ledger sequence, to bound an approval's expiration. */
  readonly latestLedger: number;
  /** An approval may expire at most this many ledgers after `latestLedger`. */
  readonly approvalLedgers: number;
  /**
   * A rescue (docs/adr/027-auction-rescue.md): a user liquidation auction against the wallet was seen (the service's
   * `liquidation_auction` trigger or the pool's Auction entry on the ledger). Only then may a `submit` carry
   * DeleteLiquidationAuction (9), with Repay (5) and SupplyCollateral (2) for the wallet itself.
   */
  readonly rescue?: {
    /** The health factor (7 decimals) the rescue aims at: SupplyCollateral is bounded by what reaches it. */
    readonly targetHealthFactor: bigint;
  };
}

/** Units of rounding an amount may carry beyond its bound (the planner's own `+ 1`s and ceilings). */
const ROUNDING_UNITS = 10n;
const CLOSE_FUNCTIONS = new Set(['submit', 'submit_with_allowance', 'flash_loan']);

const refuse = (reason: SigningRefusalReason, detail: string): SigningVerdict => ({ ok: false, reason, detail });
const OK: SigningVerdict = { ok: true };

/** Decodes `unsignedXdr` and tells whether the agent may sign it, with a stable reason code when it may not. */
export function verifyCloseTransaction(unsignedXdr: string, context: CloseSigningContext): SigningVerdict {
  let parsed: Transaction | FeeBumpTransaction;
  try {
    parsed = TransactionBuilder.fromXDR(unsignedXdr, context.passphrase);
  } catch (error) {
    return refuse('malformed_transaction', `the envelope does not decode: ${(error as Error).message}`);
  }
  if (parsed instanceof FeeBumpTransaction) return refuse('fee_bump', 'a fee-bump envelope is never signed');
  try {
    return verifyTransaction(parsed, context);
  } catch (error) {
    return refuse('malformed_arguments', `the invocation does not decode: ${(error as Error).message}`);
  }
}

function verifyTransaction(tx: Transaction, context: CloseSigningContext): SigningVerdict {
  if (tx.source !== context.wallet) return refuse('wrong_source', `source ${tx.source} is not the wallet`);
  const expected = BigInt(context.accountSequence) + 1n;
  if (BigInt(tx.sequence) !== expected) {
    return refuse('wrong_sequence', `sequence ${tx.sequence} is not the wallet's next one (${expected})`);
  }
  if (tx.memo.type !== 'none') return refuse('memo', `a ${tx.memo.type} memo is never signed`);
  const operations = tx.toEnvelope().v1().tx().operations();
  if (operations.length !== 1 || operations[0].body().switch().name !== 'invokeHostFunction') {
    return refuse('not_one_invocation', `${operations.length} operation(s), not one invokeHostFunction`);
  }
  const operation = operations[0];
  const opSource = tx.operations[0].source;
  if (opSource !== undefined && opSource !== context.wallet) {
    return refuse('wrong_source', 'the operation has a source account other than the wallet');
  }
  const invoke = operation.body().invokeHostFunctionOp();
  if (invoke.hostFunction().switch().name !== 'hostFunctionTypeInvokeContract') {
    return refuse('not_one_invocation', 'the host function is not a contract invocation');
  }
  if (BigInt(tx.fee) > context.maxFeeStroops) {
    return refuse('fee_above_cap', `fee ${tx.fee} stroops is above MAX_CLOSE_FEE_STROOPS ${context.maxFeeStroops}`);
  }
  const maxTime = Number(tx.timeBounds?.maxTime ?? 0);
  if (maxTime === 0) return refuse('no_time_bound', 'the transaction has no upper time bound');
  if (maxTime > context.nowSeconds + context.horizonSeconds) {
    return refuse('time_bound_too_far', `valid until ${maxTime}, more than ${context.horizonSeconds} s ahead`);
  }
  const call = invoke.hostFunction().invokeContract();
  const contract = Address.fromScAddress(call.contractAddress()).toString();
  const fn = call.functionName().toString();
  const args = call.args();
  const verdict = fn === 'approve' ? verifyApprove(contract, args, context) : verifyPoolCall(contract, fn, args, context);
  if (!verdict.ok) return verdict;
  const auth = checkAuthorizations(invoke.auth(), { contract, fn, args }, context);
  return auth ? refuse(auth.reason, auth.detail) : OK;
}

const addressOf = (value: xdr.ScVal): string => Address.fromScVal(value).toString();

function verifyPoolCall(contract: string, fn: string, args: xdr.ScVal[], context: CloseSigningContext): SigningVerdict {
  if (!context.poolTrusted || contract !== context.pool) {
    return refuse('unknown_pool', `${contract} is not a pool listed in WATCHED_POOLS or known to the pool factory`);
  }
  if (!CLOSE_FUNCTIONS.has(fn)) return refuse('wrong_function', `${fn} is not submit, submit_with_allowance or flash_loan`);
  let requests: Request[];
  let flashLoan: FlashLoan | undefined;
  if (fn === 'flash_loan') {
    if (args.length !== 3) return refuse('malformed_arguments', `flash_loan takes 3 arguments, not ${args.length}`);
    if (addressOf(args[0]) !== context.wallet) return refuse('wrong_address', 'flash_loan from is not the wallet');
    flashLoan = decodeFlashLoan(args[1]);
    requests = (args[2].vec() ?? []).map(decodeRequest);
  } else {
    if (args.length !== 4) return refuse('malformed_arguments', `${fn} takes 4 arguments, not ${args.length}`);
    const names = ['from', 'spender', 'to'];
    const stranger = names.find((_name, i) => addressOf(args[i]) !== context.wallet);
    if (stranger) return refuse('wrong_address', `${fn} ${stranger} is not the wallet`);
    requests = (args[3].vec() ?? []).map(decodeRequest);
  }
  return verifyRequests(requests, flashLoan, context);
}

function verifyRequests(requests: Request[], flashLoan: FlashLoan | undefined, context: CloseSigningContext): SigningVerdict {
  const holdings = holdingsOf(context.position);
  const reserves = new Set(context.position.reserves.map((reserve) => reserve.asset));
  if (flashLoan) {
    if (!context.receiver || flashLoan.contract !== context.receiver) {
      return refuse('unknown_receiver', `flash loan receiver ${flashLoan.contract} is not UNWIND_RECEIVER`);
    }
    if (!reserves.has(flashLoan.asset)) return refuse('foreign_reserve', `${flashLoan.asset} is not a reserve of the pool`);
    const collateral = holdings.get(flashLoan.asset)?.collateral ?? 0n;
    if (flashLoan.amount <= 0n || flashLoan.amount > collateral) {
      return refuse('amount_above_position', `flash loan of ${flashLoan.amount} beyond the collateral ${collateral}`);
    }
  }
  const rescue = requests.some((request) => request.requestType === REQUEST_TYPES.DeleteLiquidationAuction);
  const kinds = rescueKinds(rescue, context);
  if (!kinds.ok) return kinds;
  const totals = new Map<string, bigint>();
  for (const request of requests) {
    if (!kinds.allowed.has(request.requestType)) {
      return refuse('wrong_request_type', `request type ${request.requestType} is not ${kinds.names}`);
    }
    if (request.requestType === REQUEST_TYPES.DeleteLiquidationAuction) {
      // The pool deletes `from`'s auction whatever the address says; one naming someone else is not ours to sign.
      if (request.address !== context.wallet) return refuse('wrong_address', `request 9 names ${request.address}, not the wallet`);
      continue;
    }
    if (!reserves.has(request.address)) return refuse('foreign_reserve', `${request.address} is not a reserve of the pool`);
    if (request.amount <= 0n) return refuse('malformed_arguments', `a request of ${request.amount}`);
    const key = `${request.requestType}:${request.address}`;
    totals.set(key, (totals.get(key) ?? 0n) + request.amount);
  }
  for (const [key, amount] of totals) {
    const [type, asset] = key.split(':');
    const holding = holdings.get(asset) ?? { collateral: 0n, debt: 0n };
    const borrowed = flashLoan && flashLoan.asset === asset ? flashLoan.amount : 0n;
    if (Number(type) === REQUEST_TYPES.SupplyCollateral) {
      const bound = supplyBound(asset, context);
      if (amount > bound) return refuse('amount_above_position', `supplies ${amount} of ${asset}, beyond ${bound} (what reaches the rescue's target)`);
      continue;
    }
    const held = Number(type) === REQUEST_TYPES.Repay ? holding.debt + borrowed : holding.collateral;
    const bound = withSlippage(held, context.slippageBps) + ROUNDING_UNITS;
    if (amount > bound) {
      const what = Number(type) === REQUEST_TYPES.Repay ? 'repays' : 'withdraws';
      return refuse('amount_above_position', `${what} ${amount} of ${asset}, beyond ${bound} (position plus slippage)`);
    }
  }
  return OK;
}

const CLOSE_REQUESTS = new Set<number>([REQUEST_TYPES.Repay, REQUEST_TYPES.WithdrawCollateral]);
const RESCUE_REQUESTS = new Set<number>([
  REQUEST_TYPES.Repay,
  REQUEST_TYPES.WithdrawCollateral,
  REQUEST_TYPES.SupplyCollateral,
  REQUEST_TYPES.DeleteLiquidationAuction,
]);

/**
 * The request types a transaction may carry: a close Repay (5) and WithdrawCollateral (3). A transaction carrying
 * DeleteLiquidationAuction (9: a rescue, or a close during an auction, which the pool refuses without it) only when
 * the ledger shows an auction against the wallet, with SupplyCollateral (2) allowed besides (bounded by the rescue's
 * target). Fills (6, 7, 8), borrows and plain supplies: never.
 */
function rescueKinds(
  rescue: boolean,
  context: CloseSigningContext,
): { ok: true; allowed: ReadonlySet<number>; names: string } | Extract<SigningVerdict, { ok: false }> {
  if (!rescue) return { ok: true, allowed: CLOSE_REQUESTS, names: 'Repay (5) or WithdrawCollateral (3)' };
  if (!context.rescue) {
    return { ok: false, reason: 'wrong_request_type', detail: 'request 9 (DeleteLiquidationAuction) without an auction against the wallet' };
  }
  return { ok: true, allowed: RESCUE_REQUESTS, names: 'Repay (5), WithdrawCollateral (3), SupplyCollateral (2) or DeleteLiquidationAuction (9) in a rescue' };
}

/**
 * The most of `asset` a rescue may supply as collateral: what alone lifts the position to the rescue's target (the
 * planner's own answer), plus the slippage. A token the wallet owes is repaid, never supplied (bound 0).
 */
function supplyBound(asset: string, context: CloseSigningContext): bigint {
  const target = context.rescue?.targetHealthFactor;
  if (target === undefined || (holdingsOf(context.position).get(asset)?.debt ?? 0n) > 0n) return 0n;
  const unlimited = { balances: new Map([[asset, 2n ** 100n]]) };
  const plan = planRescue(context.position, unlimited, {
    wallet: context.wallet,
    slippageBps: context.slippageBps,
    target,
    poolStatus: 1,
    token: asset,
  });
  if (isRescueRefusal(plan)) return 0n;
  const needed = plan.levers.find((lever) => lever.asset === asset)?.amount ?? 0n;
  return withSlippage(needed, context.slippageBps) + ROUNDING_UNITS;
}

/** `approve(wallet, pool, amount, expiration)` on a reserve token of the pool, amount and lifetime bounded. */
function verifyApprove(token: string, args: xdr.ScVal[], context: CloseSigningContext): SigningVerdict {
  if (args.length !== 4) return refuse('malformed_arguments', `approve takes 4 arguments, not ${args.length}`);
  if (addressOf(args[0]) !== context.wallet) return refuse('wrong_address', 'approve from is not the wallet');
  const spender = addressOf(args[1]);
  if (spender !== context.pool) return refuse('wrong_spender', `approve spender ${spender} is not the pool`);
  if (!context.poolTrusted) {
    return refuse('unknown_pool', `${spender} is not a pool listed in WATCHED_POOLS or known to the pool factory`);
  }
  const reserves = new Set(context.position.reserves.map((reserve) => reserve.asset));
  if (!reserves.has(token)) return refuse('foreign_reserve', `${token} is not a reserve of the pool`);
  const amount = readI128(args[2]);
  const debt = holdingsOf(context.position).get(token)?.debt ?? 0n;
  const pull = withSlippage(debt, context.slippageBps);
  const bound = pull + (pull * BigInt(context.slippageBps + APPROVAL_MARGIN_BPS)) / BPS_SCALE + ROUNDING_UNITS;
  if (amount > bound) return refuse('approval_above_pull', `approve ${amount} of ${token}, beyond ${bound}`);
  const expiration = args[3].switch().name === 'scvU32' ? args[3].u32() : Number.NaN;
  if (!(expiration <= context.latestLedger + context.approvalLedgers)) {
    return refuse('approval_too_long', `approval until ledger ${expiration}, beyond ${context.latestLedger + context.approvalLedgers}`);
  }
  return OK;
}

function readI128(value: xdr.ScVal): bigint {
  if (value.switch().name !== 'scvI128') throw new TypeError('approve amount is not an i128');
  return scValToNative(value) as bigint;
}
