import {
  decodePositions,
  decodePriceData,
  decodeReserve,
  encodeOracleAsset,
  summarizePositions,
  type PriceData,
} from '@rp/ledger';
import { address as scAddress } from '../contracts/scval';
import type { ChannelSnapshot } from '../channels';
import type { ClosedLedger } from '../ledger/ledger-history';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import type { FaultRule } from '../rpc/faults';
import type { KnownAccount, SandboxDirectory } from './directory';
import type { SandboxSetup } from './sandbox-setup';

export interface AccountView {
  readonly label: string;
  readonly address: string;
  readonly nativeStroops: string | null;
  readonly tokens: Readonly<Record<string, string>>;
  readonly demoMnemonic?: string;
}

export interface PositionView {
  readonly pool: string;
  readonly poolName: string;
  readonly account: string;
  readonly label: string;
  readonly collateral: Readonly<Record<string, string>>;
  readonly liabilities: Readonly<Record<string, string>>;
  readonly supply: Readonly<Record<string, string>>;
  /** 7 decimals as a string, or null when there is no debt. */
  readonly healthFactor: string | null;
  readonly riskLevel: string;
}

export interface SandboxDump {
  readonly ledger: {
    readonly sequence: number;
    readonly closeTime: string;
    readonly pending: number;
    readonly recent: readonly ClosedLedger[];
  };
  readonly accounts: readonly AccountView[];
  readonly prices: readonly {
    readonly oracle: string;
    readonly asset: string;
    readonly symbol: string;
    readonly price: string;
    readonly timestamp: string;
  }[];
  readonly pools: readonly {
    readonly name: string;
    readonly contractId: string;
    readonly oracle: string;
    readonly reserves: readonly string[];
  }[];
  readonly positions: readonly PositionView[];
  readonly transactions: readonly {
    hash: string;
    status: string;
    ledger: number;
    source: string;
    feeCharged: string;
    error?: string;
  }[];
  readonly messages: ChannelSnapshot;
  readonly faults: readonly FaultRule[];
  readonly rpcCalls: Readonly<Record<string, number>>;
}

/** Reads everything the sandbox page and `GET /control/state` show, straight from the ledger. */
export function dumpSandbox(
  ledger: SandboxLedger,
  setup: SandboxSetup,
  extras: { messages: ChannelSnapshot; faults: readonly FaultRule[]; rpcCalls: ReadonlyMap<string, number> },
): SandboxDump {
  const { directory } = setup;
  const accounts = directory.accounts.map(
    (account): AccountView => ({
      ...account,
      nativeStroops: ledger.account(account.address)?.balance.toString() ?? null,
      tokens: Object.fromEntries(
        directory.tokens.map((token) => [token.symbol, setup.balance(token.contractId, account.address).toString()]),
      ),
    }),
  );
  const prices = directory.oracles.flatMap((oracle) =>
    directory.tokens.flatMap((token) => {
      const price = lastPrice(ledger, oracle.contractId, token.contractId);
      return price
        ? [
            {
              oracle: oracle.contractId,
              asset: token.contractId,
              symbol: token.symbol,
              price: price.price.toString(),
              timestamp: price.timestamp.toString(),
            },
          ]
        : [];
    }),
  );
  return {
    ledger: {
      sequence: ledger.latest.sequence,
      closeTime: ledger.latest.closeTime.toString(),
      pending: ledger.pendingCount,
      recent: ledger.recentLedgers(10),
    },
    accounts,
    prices,
    pools: directory.pools,
    positions: readPositions(ledger, directory),
    transactions: ledger.history
      .allTransactions()
      .slice(-25)
      .reverse()
      .map((tx) => ({
        hash: tx.hash,
        status: tx.status,
        ledger: tx.ledger,
        source: tx.source,
        feeCharged: tx.feeCharged.toString(),
        error: tx.error,
      })),
    messages: extras.messages,
    faults: extras.faults,
    rpcCalls: Object.fromEntries(extras.rpcCalls),
  };
}

/**
 * Every position of a known account (of `accounts` only, when given) in a known pool, with its health factor by the
 * pool's own math.
 */
export function readPositions(
  ledger: SandboxLedger,
  directory: SandboxDirectory,
  accounts?: ReadonlySet<string>,
): PositionView[] {
  const symbolOf = (asset: string) => directory.token(asset)?.symbol ?? asset.slice(0, 6);
  const known = accounts ? directory.accounts.filter((account) => accounts.has(account.address)) : directory.accounts;
  return directory.pools.flatMap((pool) => positionsIn(ledger, directory, pool.contractId, known, symbolOf));
}

function lastPrice(ledger: SandboxLedger, oracle: string, asset: string): PriceData | undefined {
  const value = ledger.view(oracle, 'lastprice', [encodeOracleAsset({ stellar: asset })]);
  return value.switch().name === 'scvVoid' ? undefined : decodePriceData(value);
}

function positionsIn(
  ledger: SandboxLedger,
  directory: SandboxDirectory,
  poolId: string,
  accounts: readonly KnownAccount[],
  symbolOf: (asset: string) => string,
): PositionView[] {
  const pool = directory.pool(poolId);
  if (!pool) return [];
  const reserves = pool.reserves.map((asset) => decodeReserve(ledger.view(poolId, 'get_reserve', [scAddress(asset)])));
  const decimals = directory.oracles.find((oracle) => oracle.contractId === pool.oracle)?.decimals ?? 7;
  const prices = new Map(
    reserves.flatMap((reserve) => {
      const price = lastPrice(ledger, pool.oracle, reserve.asset);
      return price ? [[reserve.asset, price] as const] : [];
    }),
  );
  return accounts.flatMap((account): PositionView[] => {
    const positions = decodePositions(ledger.view(poolId, 'get_positions', [scAddress(account.address)]));
    const held = positions.collateral.size + positions.liabilities.size + positions.supply.size;
    if (held === 0) return [];
    const byReserve = (map: ReadonlyMap<number, bigint>) =>
      Object.fromEntries(
        [...map].map(([index, amount]) => [symbolOf(reserves[index]?.asset ?? String(index)), amount.toString()]),
      );
    let healthFactor: string | null = null;
    let riskLevel = 'unknown';
    try {
      const summary = summarizePositions(reserves, { decimals, prices }, positions);
      healthFactor = summary.healthFactor?.toString() ?? null;
      riskLevel = summary.riskLevel;
    } catch {
      riskLevel = 'no price';
    }
    return [
      {
        pool: poolId,
        poolName: pool.name,
        account: account.address,
        label: account.label,
        collateral: byReserve(positions.collateral),
        liabilities: byReserve(positions.liabilities),
        supply: byReserve(positions.supply),
        healthFactor,
        riskLevel,
      },
    ];
  });
}
