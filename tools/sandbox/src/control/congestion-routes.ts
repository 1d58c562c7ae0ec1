import { feeStatsOf } from '../ledger/congestion/fee-stats';
import { feeRate } from '../ledger/congestion/surge-pricing';
import { BASE_FEE } from '../ledger/fees';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { BadRequestError } from '../server/http-io';
import type { CongestionStorm } from './congestion-storm';

type Body = Record<string, unknown>;
export interface CongestionRoute {
  readonly method: string;
  readonly pattern: RegExp;
  readonly run: (body: Body) => unknown;
}

/** How many queued transactions `GET /control/congestion` lists (the count is always complete). */
const LISTED_QUEUE = 50;
const MAX_LEDGER_LIMIT = 100_000;
const MAX_STORM_TRANSACTIONS = 1_000;
const MAX_STORM_LEDGERS = 100_000;
/** A storm bids at most 100 XLM per transaction: a transaction's whole fee is an XDR uint32 (about 429 XLM). */
const MAX_STORM_FEE = 1_000_000_000n;

/**
 * Control routes of the congestion model: the per-ledger Soroban limit (`/control/ledger/limits`) and the storm
 * (`/control/congestion`), whose `GET` also shows the queue and the current fee percentiles for the page.
 */
export function congestionRoutes(ledger: SandboxLedger, storm: CongestionStorm): CongestionRoute[] {
  const limits = () => ({ maxSorobanTransactions: ledger.maxSorobanTransactions });
  return [
    { method: 'GET', pattern: /^\/control\/ledger\/limits$/, run: limits },
    {
      method: 'POST',
      pattern: /^\/control\/ledger\/limits$/,
      run: (body) => {
        ledger.maxSorobanTransactions = integer(
          body.maxSorobanTransactions,
          'maxSorobanTransactions',
          1,
          MAX_LEDGER_LIMIT,
        );
        return limits();
      },
    },
    {
      method: 'GET',
      pattern: /^\/control\/congestion$/,
      run: () => ({
        storm: storm.status,
        ...(storm.lastError !== undefined && { stormStopped: storm.lastError }),
        ...limits(),
        queued: ledger.pendingCount,
        queue: ledger.queued.slice(0, LISTED_QUEUE).map((parsed) => ({
          hash: parsed.hash,
          source: parsed.inner.source,
          inclusionFeePerOperation: feeRate(parsed).toString(),
          storm: storm.isStorm(parsed),
        })),
        feeStats: feeStatsOf(ledger),
      }),
    },
    {
      method: 'POST',
      pattern: /^\/control\/congestion$/,
      run: (body) =>
        storm.start({
          transactionsPerLedger: integer(
            body.transactionsPerLedger,
            'transactionsPerLedger',
            1,
            MAX_STORM_TRANSACTIONS,
          ),
          inclusionFee: stroops(body.inclusionFee, 'inclusionFee'),
          ledgers: integer(body.ledgers, 'ledgers', 1, MAX_STORM_LEDGERS),
        }),
    },
    {
      method: 'DELETE',
      pattern: /^\/control\/congestion$/,
      run: () => {
        storm.stop();
        return { storm: null, queued: ledger.pendingCount };
      },
    },
  ];
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new BadRequestError(`${field} must be an integer between ${min} and ${max}`);
  }
  return value;
}

/** An inclusion fee: an integer (number or integer string) from the network minimum up. */
function stroops(value: unknown, field: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (
    typeof text !== 'string' ||
    !/^[1-9]\d{0,18}$/.test(text) ||
    BigInt(text) < BASE_FEE ||
    BigInt(text) > MAX_STORM_FEE
  ) {
    throw new BadRequestError(`${field} must be an integer number of stroops between ${BASE_FEE} and ${MAX_STORM_FEE}`);
  }
  return BigInt(text);
}
