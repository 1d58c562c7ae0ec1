/**
 * Purchases per second sustained by the subscription service with N settlement lanes, and what an honest
 * settlement costs the sponsor. The sandbox ledger closes every BENCH_LEDGER_MS (5 s, the network's pace); for each
 * lane count a fresh subscription process (its own database) takes BENCH_BUYERS_PER_LANE x N buyers arriving at
 * once, each retrying after `Retry-After` when told the lanes are busy, and the rate is purchases completed per
 * second from the first request to the last grant.
 *
 *   node tools/bench/bin/bench.cjs payments
 */
import { performance } from 'node:perf_hooks';
import type { Stack } from '@rp/dev';
import { type PaymentRequired, createExactPayment, encodeX402Header } from '@rp/ledger';
import { startBenchStack } from './bench-stack';

const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 5000);
const LANES = (process.env['BENCH_LANES'] ?? '1,4,8').split(',').map(Number);
const BUYERS_PER_LANE = Number(process.env['BENCH_BUYERS_PER_LANE'] ?? 4);
const PRICE = 2_026_000n;

interface Result {
  lanes: number;
  buyers: number;
  seconds: number;
  perSecond: number;
  perLedger: number;
  busyAnswers: number;
  medianMs: number;
  p95Ms: number;
}

/** Signed payments of `buyers` fresh wallets for the challenge the service at `url` answers. */
async function paymentsFor(stack: Stack, url: string, buyers: number): Promise<string[]> {
  const challenge = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'probe@example.com' }),
  });
  if (challenge.status !== 402)
    throw new Error(`the challenge answered ${challenge.status}: ${await challenge.text()}`);
  const required = JSON.parse(
    Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString('utf8'),
  ) as PaymentRequired;
  const payments: string[] = [];
  for (let i = 0; i < buyers; i += 1) {
    const { wallet: payer } = stack.wallet({ usdc: PRICE }, 'bench buyer');
    payments.push(
      encodeX402Header(await createExactPayment({ ledger: stack.ledger, payer, requirements: required.accepts[0] })),
    );
  }
  return payments;
}

/** The buyers arrive at once, each retrying after `Retry-After` while the lanes are busy. */
async function purchase(url: string, lanes: number, payments: string[]) {
  let busyAnswers = 0;
  const latencies: number[] = [];
  const hashes: string[] = [];
  const started = performance.now();
  await Promise.all(
    payments.map(async (payment, index) => {
      for (;;) {
        const sent = performance.now();
        const answer = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-PAYMENT-SIGNATURE': payment },
          body: JSON.stringify({ email: `bench-${lanes}-${index}@example.com` }),
        });
        await answer.arrayBuffer();
        if (answer.status === 200) {
          latencies.push(performance.now() - sent);
          const receipt = JSON.parse(
            Buffer.from(answer.headers.get('payment-response') ?? '', 'base64').toString('utf8'),
          ) as { transaction: string };
          hashes.push(receipt.transaction);
          return;
        }
        if (answer.status !== 503) throw new Error(`purchase answered ${answer.status}`);
        busyAnswers += 1;
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers.get('retry-after') ?? 1)));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
  const buyers = payments.length;
  const result: Result = {
    lanes,
    buyers,
    seconds: Math.round(seconds * 10) / 10,
    perSecond: Math.round((buyers / seconds) * 100) / 100,
    perLedger: Math.round((buyers / (seconds / (LEDGER_MS / 1000))) * 10) / 10,
    busyAnswers,
    medianMs: at(0.5),
    p95Ms: at(0.95),
  };
  return { result, hashes };
}

async function main(): Promise<void> {
  // No app at first: a subscription process per lane count, called directly (no internal token, no gateway).
  const stack = await startBenchStack({
    apps: [],
    ledgerIntervalMs: LEDGER_MS,
    env: { all: { NODE_ENV: 'test' }, subscription: { INTERNAL_TOKEN: undefined, SETTLEMENT_TIMEOUT_MS: '60000' } },
  });
  const results: Result[] = [];
  const fees: bigint[] = [];
  try {
    for (const lanes of LANES) {
      const subscription = await stack.start('subscription', { env: { X402_SETTLEMENT_LANES: String(lanes) } });
      try {
        const url = `${subscription.url}/api/v1/keys/subscribe`;
        const { result, hashes } = await purchase(url, lanes, await paymentsFor(stack, url, lanes * BUYERS_PER_LANE));
        results.push(result);
        for (const hash of hashes.slice(0, 10)) {
          const found = await stack.ledger.getTransaction(hash);
          if (found.status === 'SUCCESS') fees.push(BigInt(found.resultXdr.feeCharged().toString()));
        }
      } finally {
        await subscription.stop();
      }
    }
  } finally {
    await stack.close();
  }
  report(results, fees);
}

function report(results: Result[], fees: bigint[]): void {
  fees.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  process.stdout.write(`\nLedger every ${LEDGER_MS} ms, ${BUYERS_PER_LANE} buyers per lane arriving at once.\n\n`);
  process.stdout.write(
    [
      '| lanes | buyers | seconds | purchases/s | per ledger | 503 answers | median ms | p95 ms |',
      '|---|---|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.lanes} | ${r.buyers} | ${r.seconds} | ${r.perSecond} | ${r.perLedger} | ${r.busyAnswers} | ${r.medianMs} | ${r.p95Ms} |`,
      ),
    ].join('\n') + '\n',
  );
  const median = fees[Math.floor(fees.length / 2)];
  process.stdout.write(
    `\nSponsor's fee per honest settlement (fee bump included), ${fees.length} settlements: ` +
      `min ${fees[0]}, median ${median}, max ${fees[fees.length - 1]} stroops\n`,
  );
  process.stdout.write(`${JSON.stringify({ results, fees: fees.map(String) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
