import {
  Account,
  Asset,
  Address,
  Contract,
  Keypair,
  Memo,
  Networks,
  Operation,
  StrKey,
  TimeoutInfinite,
  TransactionBuilder,
  nativeToScVal,
  xdr,
} from '@stellar/stellar-sdk';
import { REQUEST_TYPES, type Positions, type Reserve } from '../blend/layouts';
import { toBTokenDown, toDTokenUp } from '../blend/math';
import { poolSubmitOperation } from '../blend/pool-operations';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from '../blend/test-fixtures';
import { type UnwindPlan, type UnwindPosition, planUnwindFromWallet, planUnwindWithSwap } from '../blend/unwind-planner';
import { missingApproval, unwindOperation } from '../blend/unwind-route';
import { type CloseSigningContext, SIGNING_REFUSAL_REASONS, verifyCloseTransaction } from './close-signing-rule';

const contract = (seed: number) => StrKey.encodeContract(Buffer.alloc(32, seed));
const USDC = contract(1);
const XLM = contract(2);
const FOREIGN_TOKEN = contract(3);
const POOL = contract(5);
const OTHER_POOL = contract(6);
const RECEIVER = contract(9);
const STRANGER_CONTRACT = contract(10);
const WALLET = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const STRANGER = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).publicKey();
const UNIT = 10_000_000n;
const NOW = 1_800_000_000;
const SLIPPAGE = 100;
const PASSPHRASE = Networks.TESTNET;

const reserve = (asset: string, index: number): Reserve => ({
  asset,
  config: { ...SAMPLE_RESERVE_CONFIG, index, cFactor: 7_500_000, lFactor: 9_500_000 },
  data: { ...FRESH_RESERVE_DATA, bRate: 1_000_300_000_007n, dRate: 1_000_900_000_013n },
  scalar: UNIT,
});
const RESERVES = [reserve(USDC, 0), reserve(XLM, 1)];
const PRICES = {
  decimals: 7,
  prices: new Map([
    [USDC, { price: 10_000_000n, timestamp: 0n }],
    [XLM, { price: 3_000_000n, timestamp: 0n }],
  ]),
};
/** 10,000 XLM of collateral, 1,000 USDC of debt and 100 USDC of collateral. */
const positions: Positions = {
  collateral: new Map([
    [1, toBTokenDown(RESERVES[1], 10_000n * UNIT)],
    [0, toBTokenDown(RESERVES[0], 100n * UNIT)],
  ]),
  liabilities: new Map([[0, toDTokenUp(RESERVES[0], 1_000n * UNIT)]]),
  supply: new Map(),
};
const POSITION: UnwindPosition = { reserves: RESERVES, positions, prices: PRICES };

const CONTEXT: CloseSigningContext = {
  wallet: WALLET,
  passphrase: PASSPHRASE,
  accountSequence: '100',
  nowSeconds: NOW,
  horizonSeconds: 600,
  maxFeeStroops: 100_000_000n,
  pool: POOL,
  poolTrusted: true,
  receiver: RECEIVER,
  position: POSITION,
  slippageBps: SLIPPAGE,
  latestLedger: 5_000,
  approvalLedgers: 360,
};

const plan = (balances: [string, bigint][]) => planUnwindFromWallet(POSITION, { balances: new Map(balances) }, SLIPPAGE) as UnwindPlan;
const SUBMIT = plan([[USDC, 2_000n * UNIT]]);
const WITH_ALLOWANCE = plan([[USDC, 1_000n * UNIT]]);
const FLASH_LOAN = planUnwindWithSwap(
  POSITION,
  { balances: new Map() },
  SLIPPAGE,
  { tokenIn: XLM, tokenOut: USDC, amountIn: 10_000n * UNIT, amountOut: 2_991n * UNIT },
  RECEIVER,
) as UnwindPlan;
const APPROVAL = missingApproval(FLASH_LOAN, new Map(), SLIPPAGE) ?? { token: USDC, amount: 0n };

interface Shape {
  source?: string;
  sequence?: string;
  fee?: string;
  maxTime?: number;
  memo?: Memo;
  extra?: xdr.Operation;
  auth?: (call: xdr.InvokeContractArgs) => xdr.SorobanAuthorizationEntry[];
}

/** An unsigned envelope of one operation, built with the stellar-sdk as txb and the agent build them. */
function envelope(operation: xdr.Operation, shape: Shape = {}): string {
  const builder = new TransactionBuilder(new Account(shape.source ?? WALLET, shape.sequence ?? '100'), {
    fee: shape.fee ?? '50000',
    networkPassphrase: PASSPHRASE,
    ...(shape.memo && { memo: shape.memo }),
  });
  const op = xdr.Operation.fromXDR(operation.toXDR());
  if (op.body().switch().name === 'invokeHostFunction' && shape.auth) {
    const invoke = op.body().invokeHostFunctionOp();
    invoke.auth(shape.auth(invoke.hostFunction().invokeContract()));
  }
  builder.addOperation(op);
  if (shape.extra) builder.addOperation(shape.extra);
  if (shape.maxTime === 0) builder.setTimeout(TimeoutInfinite);
  else builder.setTimebounds(0, shape.maxTime ?? NOW + 300);
  return builder.build().toXDR();
}

const call = (target: string, fn: string, args: xdr.ScVal[], subs: xdr.SorobanAuthorizedInvocation[] = []) =>
  new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({ contractAddress: new Address(target).toScAddress(), functionName: fn, args }),
    ),
    subInvocations: subs,
  });
const sourceEntry = (root: xdr.SorobanAuthorizedInvocation) =>
  new xdr.SorobanAuthorizationEntry({ credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(), rootInvocation: root });
const address = (value: string) => new Address(value).toScVal();
const i128 = (value: bigint) => nativeToScVal(value, { type: 'i128' });
const transfer = (token: string, to: string, amount: bigint) => call(token, 'transfer', [address(WALLET), address(to), i128(amount)]);
/** The tree `submit` records: the pool's call, and the wallet paying the repayment into the pool. */
const honestAuth = (invocation: xdr.InvokeContractArgs) => [
  sourceEntry(
    call(Address.fromScAddress(invocation.contractAddress()).toString(), invocation.functionName().toString(), invocation.args(), [
      transfer(USDC, POOL, 1_010n * UNIT),
    ]),
  ),
];

const approve = (token: string, spender: string, amount: bigint, expiration: number) =>
  new Contract(token).call('approve', address(WALLET), address(spender), i128(amount), nativeToScVal(expiration, { type: 'u32' }));
const request = (requestType: number, asset: string, amount: bigint) => ({ requestType, address: asset, amount });
const submitOf = (requests: ReturnType<typeof request>[]) => poolSubmitOperation(POOL, WALLET, requests);
const SUBMIT_OP = unwindOperation(POOL, WALLET, SUBMIT);

const verdict = (transactionXdr: string, context: Partial<CloseSigningContext> = {}) =>
  verifyCloseTransaction(transactionXdr, { ...CONTEXT, ...context });

describe('the close signing rule', () => {
  it('plans the routes the tests rely on', () => {
    expect([SUBMIT.route, WITH_ALLOWANCE.route, FLASH_LOAN.route]).toEqual(['submit', 'submit-with-allowance', 'flash-loan']);
    expect(APPROVAL.amount).toBeGreaterThan(0n);
  });

  it.each([
    ['a repay-and-withdraw submit', envelope(SUBMIT_OP, { auth: honestAuth })],
    ['a withdraw with allowance', envelope(unwindOperation(POOL, WALLET, WITH_ALLOWANCE), { auth: honestAuth })],
    ['a flash-loan unwind', envelope(unwindOperation(POOL, WALLET, FLASH_LOAN), { auth: honestAuth })],
    ['an approval of the pull', envelope(approve(APPROVAL.token, POOL, APPROVAL.amount, 5_000 + 180))],
    ['a partial repay', envelope(submitOf([request(REQUEST_TYPES.Repay, USDC, 500n * UNIT)]))],
  ])('signs %s the agent would have built', (_name, transaction) => {
    expect(verdict(transaction)).toEqual({ ok: true });
  });

  const payment = Operation.payment({ destination: STRANGER, asset: Asset.native(), amount: '99999' });
  const cases: [string, string, Partial<CloseSigningContext>?][] = [
    ['malformed_transaction', 'AAAA-not-an-envelope'],
    ['fee_bump', feeBump(envelope(SUBMIT_OP))],
    ['wrong_source', envelope(SUBMIT_OP, { source: STRANGER })],
    ['wrong_sequence', envelope(SUBMIT_OP, { sequence: '101' })],
    ['memo', envelope(SUBMIT_OP, { memo: Memo.text('gm') })],
    ['not_one_invocation', envelope(SUBMIT_OP, { extra: Operation.setOptions({ signer: { ed25519PublicKey: STRANGER, weight: 255 } }) })],
    ['fee_above_cap', envelope(SUBMIT_OP, { fee: '100000001' })],
    ['no_time_bound', envelope(SUBMIT_OP, { maxTime: 0 })],
    ['time_bound_too_far', envelope(SUBMIT_OP, { maxTime: NOW + 601 })],
    ['unknown_pool', envelope(SUBMIT_OP), { poolTrusted: false }],
    ['unknown_pool', envelope(unwindOperation(OTHER_POOL, WALLET, SUBMIT))],
    ['wrong_function', envelope(new Contract(POOL).call('set_admin', address(STRANGER)))],
    ['malformed_arguments', envelope(new Contract(POOL).call('submit', address(WALLET)))],
    ['wrong_address', envelope(new Contract(POOL).call('submit', address(WALLET), address(WALLET), address(STRANGER), xdr.ScVal.scvVec([])))],
    ['wrong_request_type', envelope(submitOf([request(REQUEST_TYPES.Borrow, USDC, UNIT)]))],
    ['foreign_reserve', envelope(submitOf([request(REQUEST_TYPES.Repay, FOREIGN_TOKEN, UNIT)]))],
    ['amount_above_position', envelope(submitOf([request(REQUEST_TYPES.WithdrawCollateral, XLM, 10_200n * UNIT)]))],
    ['amount_above_position', envelope(submitOf([request(REQUEST_TYPES.Repay, USDC, 1_020n * UNIT)]))],
    ['unknown_receiver', envelope(unwindOperation(POOL, WALLET, { ...FLASH_LOAN, flashLoan: { ...FLASH_LOAN.flashLoan!, contract: STRANGER_CONTRACT } }))],
    ['wrong_spender', envelope(approve(USDC, STRANGER, APPROVAL.amount, 5_100))],
    ['approval_above_pull', envelope(approve(USDC, POOL, 1_200n * UNIT, 5_100))],
    ['approval_too_long', envelope(approve(USDC, POOL, APPROVAL.amount, 5_361))],
    ['auth_root_mismatch', envelope(SUBMIT_OP, { auth: () => [sourceEntry(transfer(USDC, STRANGER, 1_500n * UNIT))] })],
    [
      'auth_moves_funds',
      envelope(SUBMIT_OP, {
        auth: (invocation) => [sourceEntry(call(POOL, 'submit', invocation.args(), [transfer(USDC, STRANGER, 1_500n * UNIT)]))],
      }),
    ],
  ];

  // Rows of three (jest takes a fourth parameter beyond a row's length for a `done` callback).
  it.each(cases.map(([reason, transaction, context]) => [reason, transaction, context ?? {}] as const))(
    'refuses %s',
    (reason, transaction, context) => {
      expect(verdict(transaction, context)).toMatchObject({ ok: false, reason });
    },
  );
  it('refuses a lone classic payment and a service-named receiver without an operator receiver', () => {
    const lone = new TransactionBuilder(new Account(WALLET, '100'), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(payment)
      .setTimebounds(0, NOW + 60)
      .build()
      .toXDR();
    expect(verdict(lone)).toMatchObject({ reason: 'not_one_invocation' });
    expect(verdict(envelope(unwindOperation(POOL, WALLET, FLASH_LOAN)), { receiver: undefined })).toMatchObject({
      reason: 'unknown_receiver',
    });
  });

  it('has a test for every reason code it can answer', () => {
    const tested = new Set(cases.map(([reason]) => reason));
    expect(SIGNING_REFUSAL_REASONS.filter((reason) => !tested.has(reason))).toEqual([]);
  });
});

function feeBump(inner: string): string {
  const tx = TransactionBuilder.fromXDR(inner, PASSPHRASE);
  return TransactionBuilder.buildFeeBumpTransaction(WALLET, '60000', tx as never, PASSPHRASE).toXDR();
}
