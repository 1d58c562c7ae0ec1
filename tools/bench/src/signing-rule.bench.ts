import { cpus } from 'node:os';
import {
  type CloseSigningContext,
  type Positions,
  type Reserve,
  type UnwindPlan,
  type UnwindPosition,
  planUnwindWithSwap,
  toBTokenDown,
  toDTokenUp,
  unwindOperation,
  verifyCloseTransaction,
} from '@rp/ledger';
import { Account, Keypair, Networks, StrKey, TransactionBuilder } from '@stellar/stellar-sdk';
import { measure } from './stats';

/**
 * The signing rule alone, as the agent runs it on a presigned close right before `sendTransaction` (no I/O): decode
 * a flash-loan unwind envelope of two reserves and check every clause. `BENCH_RUNS` (5000 by default).
 */
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5000);
const UNIT = 10_000_000n;
const contract = (seed: number) => StrKey.encodeContract(Buffer.alloc(32, seed));
const [USDC, XLM, POOL, RECEIVER] = [contract(1), contract(2), contract(5), contract(9)];
const WALLET = Keypair.random().publicKey();
const reserve = (asset: string, index: number): Reserve => ({
  asset,
  config: {
    index,
    decimals: 7,
    cFactor: 7_500_000,
    lFactor: 9_500_000,
    util: 5_000_000,
    maxUtil: 9_500_000,
    rBase: 100_000,
    rOne: 500_000,
    rTwo: 5_000_000,
    rThree: 15_000_000,
    reactivity: 20,
    supplyCap: 2n ** 100n,
    enabled: true,
  },
  data: {
    dRate: 1_000_900_000_013n,
    bRate: 1_000_300_000_007n,
    irMod: 10_000_000n,
    bSupply: 0n,
    dSupply: 0n,
    backstopCredit: 0n,
    lastTime: 0n,
  },
  scalar: UNIT,
});
const reserves = [reserve(USDC, 0), reserve(XLM, 1)];
const positions: Positions = {
  collateral: new Map([[1, toBTokenDown(reserves[1], 10_000n * UNIT)]]),
  liabilities: new Map([[0, toDTokenUp(reserves[0], 1_900n * UNIT)]]),
  supply: new Map(),
};
const prices = {
  decimals: 7,
  prices: new Map([
    [USDC, { price: 10_000_000n, timestamp: 0n }],
    [XLM, { price: 2_800_000n, timestamp: 0n }],
  ]),
};
const position: UnwindPosition = { reserves, positions, prices };
const quote = { tokenIn: XLM, tokenOut: USDC, amountIn: 10_000n * UNIT, amountOut: 2_791n * UNIT };
const plan = planUnwindWithSwap(position, { balances: new Map() }, 100, quote, RECEIVER) as UnwindPlan;
const now = Math.floor(Date.now() / 1000);
const envelope = new TransactionBuilder(new Account(WALLET, '100'), { fee: '250000', networkPassphrase: Networks.TESTNET })
  .addOperation(unwindOperation(POOL, WALLET, plan))
  .setTimebounds(0, now + 300)
  .build()
  .toXDR();
const context: CloseSigningContext = {
  wallet: WALLET,
  passphrase: Networks.TESTNET,
  accountSequence: '100',
  nowSeconds: now,
  horizonSeconds: 600,
  maxFeeStroops: 100_000_000n,
  pool: POOL,
  poolTrusted: true,
  receiver: RECEIVER,
  position,
  slippageBps: 100,
  latestLedger: 1_000,
  approvalLedgers: 360,
};

async function main(): Promise<void> {
  if (!verifyCloseTransaction(envelope, context).ok) throw new Error('the bench envelope does not pass the rule');
  const timing = await measure('verifyCloseTransaction (flash-loan unwind)', RUNS, async () => verifyCloseTransaction(envelope, context), 200);
  process.stdout.write(`signing rule bench: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${RUNS} runs\n\n`);
  process.stdout.write('| check | runs | median ms | p99 ms | mean ms |\n|---|---|---|---|---|\n');
  process.stdout.write(`| ${timing.name} | ${timing.runs} | ${timing.medianMs} | ${timing.p99Ms} | ${timing.meanMs} |\n`);
}

void main();
