import { type Stack, buyKey } from '@rp/dev';
import { DEMO_PRICES, UNIT } from '@rp/sandbox';

/** The sandbox's per-ledger Soroban limit and the storm: 3x the limit at 10x the minimum fee (issue 18). */
export const LIMIT = 5;
export const STORM = { transactionsPerLedger: 3 * LIMIT, inclusionFee: 1000, ledgers: 100_000 };
/** $0.29: the endangered position (health factor about 1.12) falls to about 1.09, critical. */
const CRITICAL_XLM_PRICE = 2_900_000n;
const DEADLINE_MS = 180_000;

export interface CloseRound {
  /** Ledgers from the one open when the price dropped, and from the agent's decision, to the one holding the close. */
  ledgersFromDrop: number;
  ledgersFromDecision: number;
  /** From the price drop to the close of the ledger holding the close. */
  secondsFromDrop: number;
  /** The inclusion fee the landing attempt bid, what the ledger charged (inclusion + resources), and the attempts. */
  bid: bigint;
  charged: bigint;
  attempts: number;
}

export interface PurchaseRound {
  ledgers: number;
  seconds: number;
  /** The fee the sponsor's fee bump was charged. */
  sponsorCost: bigint;
}

interface Status {
  presigned: { entries: number };
  recentCloses: {
    outcome: string;
    txHash: string | null;
    riskSnapshot: { ledger: number | null };
    attempts?: { fee: string; txHash: string }[];
  }[];
}

export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The close time (this process's clock) of every ledger from now on: the sandbox runs in this process. */
export function ledgerClock(stack: Stack): Map<number, number> {
  const closedAt = new Map<number, number>();
  stack.sandbox.ledger.on('close', () => closedAt.set(stack.sandbox.ledger.latest.sequence, Date.now()));
  return closedAt;
}

export async function included(stack: Stack, hash: string) {
  const answer = await stack.ledger.getTransaction(hash);
  if (answer.status !== 'SUCCESS') return undefined;
  return { ledger: answer.ledger, charged: BigInt(answer.resultXdr.feeCharged().toString()) };
}

/** A fresh endangered wallet and its agent; once the close is presigned the XLM price drops to critical. */
export async function closeRound(stack: Stack, closedAt: Map<number, number>, index: number): Promise<CloseRound> {
  const { scenario, sandbox } = stack;
  sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_PRICES.xlm);
  const owner = stack.borrower(
    { xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, extraUsdc: 1n * UNIT },
    'storm bench wallet',
  );
  const agent = await stack.start('agent', {
    env: {
      LEDGER_MNEMONIC: owner.mnemonic,
      SERVICE_EMAIL: `storm-${index}-${Date.now()}@example.com`,
      SLIPPAGE: '500',
    },
  });
  const status = async () => (await (await fetch(`${agent.url}/status`)).json()) as Status;
  try {
    await until('a presigned close', async () => ((await status()).presigned.entries === 1 ? true : undefined));
    const open = sandbox.ledger.latest.sequence;
    const droppedAt = Date.now();
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, CRITICAL_XLM_PRICE);
    const close = await until('a confirmed close', async () =>
      (await status()).recentCloses.find((c) => c.outcome === 'confirmed'),
    );
    const landed = await until('the close on the ledger', () => included(stack, close.txHash ?? ''));
    const closeTime = await until('the ledger clock', () => closedAt.get(landed.ledger));
    const attempts = close.attempts ?? [];
    return {
      ledgersFromDrop: landed.ledger - open,
      ledgersFromDecision: landed.ledger - (close.riskSnapshot.ledger ?? open),
      secondsFromDrop: (closeTime - droppedAt) / 1000,
      bid: BigInt(attempts.find((a) => a.txHash === close.txHash)?.fee ?? '0'),
      charged: landed.charged,
      attempts: attempts.length,
    };
  } finally {
    await agent.stop();
  }
}

/** A fresh wallet buys a key (the direct x402 flow); measured from the request to the ledger holding the settlement. */
export async function purchaseRound(
  stack: Stack,
  closedAt: Map<number, number>,
  index: number,
): Promise<PurchaseRound> {
  const buyer = stack.wallet({ xlm: 100n * UNIT, usdc: 5n * UNIT }, 'storm bench buyer');
  const open = stack.sandbox.ledger.latest.sequence;
  const startedAt = Date.now();
  const { txHash } = await buyKey({
    gatewayUrl: stack.app('gateway').url,
    mnemonic: buyer.mnemonic,
    email: `storm-buyer-${index}-${Date.now()}@example.com`,
    rpcUrl: stack.sandbox.secureRpcUrl,
  });
  const landed = await until('the settlement on the ledger', () => included(stack, txHash));
  const closeTime = await until('the ledger clock', () => closedAt.get(landed.ledger));
  return { ledgers: landed.ledger - open, seconds: (closeTime - startedAt) / 1000, sponsorCost: landed.charged };
}

/** Starts the storm and waits until getFeeStats asks its fee (p95 of the charged inclusion fees). */
export async function startStorm(stack: Stack): Promise<void> {
  const answer = await fetch(`${stack.sandbox.url}/control/congestion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(STORM),
  });
  if (!answer.ok) throw new Error(`storm: ${answer.status} ${await answer.text()}`);
  await until('p95 at the storm fee', async () =>
    BigInt((await stack.ledger.getFeeStats()).sorobanInclusionFee.p95) >= BigInt(STORM.inclusionFee) ? true : undefined,
  );
}
