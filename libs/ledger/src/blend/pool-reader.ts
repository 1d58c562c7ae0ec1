import {
  Account,
  Address,
  Contract,
  TransactionBuilder,
  rpc,
  scValToNative,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import {
  POOL_INSTANCE_KEYS,
  type PoolConfig,
  type Positions,
  type PriceData,
  type Reserve,
  contractDataKey,
  contractInstanceKey,
  decodePoolConfig,
  decodePositions,
  decodePriceData,
  decodeReserveConfig,
  decodeReserveData,
  emptyPositions,
  encodeOracleAsset,
  positionsKey,
  auctionKey,
  resConfigKey,
  resDataKey,
  resListKey,
} from './layouts';
import { accrueReserve } from './math';
import { type AccountState, accountLedgerKey, accountStateOf } from '../transactions/accounts';
import { readAddress, readString, readVec, isVoid } from './scval';
import { summarizePositions, type PositionSummary } from './position-summary';

/** Anything that answers `getLedgerEntries` with an array of keys (our LedgerRpc, or `ledgerEntriesOf(server)`). */
export interface LedgerEntriesSource {
  getLedgerEntries(keys: xdr.LedgerKey[]): Promise<rpc.Api.GetLedgerEntriesResponse>;
}

export interface SimulationSource {
  simulateTransaction(tx: Transaction): Promise<rpc.Api.SimulateTransactionResponse>;
}

/** Adapts `rpc.Server` (variadic `getLedgerEntries`) to `LedgerEntriesSource`. */
export const ledgerEntriesOf = (server: rpc.Server): LedgerEntriesSource => ({
  getLedgerEntries: (keys) => server.getLedgerEntries(...keys),
});

/** A pool as stored, with every reserve accrued to `timestamp`. `reserves[i]` has reserve index i. */
export interface BlendPool {
  readonly id: string;
  readonly name: string;
  readonly admin: string;
  readonly backstop: string;
  readonly blndToken: string | undefined;
  readonly config: PoolConfig;
  readonly reserveList: readonly string[];
  readonly reserves: readonly Reserve[];
  readonly timestamp: bigint;
  readonly latestLedger: number;
}

export interface OraclePrices {
  readonly oracle: string;
  readonly decimals: number;
  /** Asset -> last price; assets the oracle has no price for are absent. */
  readonly prices: ReadonlyMap<string, PriceData>;
}

/** A wallet's positions in a pool (empty when it has none) and its account (absent when it does not exist). */
export interface WalletInPool {
  readonly positions: Positions;
  readonly account: AccountState | undefined;
  readonly latestLedger: number;
  /** Asked for only (`withAuction`): whether a user liquidation auction against the wallet is on the ledger. */
  readonly auction?: boolean;
}

/** Blend's `AuctionType::UserLiquidation`. */
export const USER_LIQUIDATION_AUCTION = 0;

export interface PoolUser {
  readonly pool: string;
  readonly user: string;
}

/** Positions by pool, then by user (every pair asked for is present, empty when the user has none). */
export interface PositionsRead {
  readonly positions: Map<string, Map<string, Positions>>;
  readonly latestLedger: number;
}

export interface BlendPoolReaderOptions {
  readonly ledger: LedgerEntriesSource;
  readonly simulator: SimulationSource;
  readonly networkPassphrase: string;
  /** Unix seconds reserves are accrued to; defaults to the wall clock, like the blend-sdk. */
  readonly now?: () => bigint;
}

/** No Blend pool lives at this address: no contract there, or one whose storage is not a pool's. */
export class PoolNotFoundError extends Error {
  override readonly name = 'PoolNotFoundError';

  constructor(
    readonly poolId: string,
    reason: string,
  ) {
    super(`no Blend pool at ${poolId}: ${reason}`);
  }
}

/** Simulations are not signed or sequence-checked, so any well-formed source account will do. */
const SIMULATION_SOURCE = 'GANXGJV2RNOFMOSQ2DTI3RKDBAVERXUVFC27KW3RLVQCLB3RYNO3AAI4';

/** Reads Blend v2 pools straight from ledger entries, in as few RPC round trips as the data allows. */
export class BlendPoolReader {
  private readonly now: () => bigint;

  constructor(private readonly options: BlendPoolReaderOptions) {
    this.now = options.now ?? (() => BigInt(Math.floor(Date.now() / 1000)));
  }

  /**
   * Two calls: instance + reserve list, then every reserve's config and data at once. `PoolNotFoundError` when the
   * address holds no contract, or a contract whose storage is not a Blend pool's.
   */
  async loadPool(poolId: string): Promise<BlendPool> {
    const head = await this.options.ledger.getLedgerEntries([
      contractInstanceKey(poolId),
      contractDataKey(poolId, resListKey()),
    ]);
    let found = false;
    const instance = new Map<string, xdr.ScVal>();
    let reserveList: string[] | undefined;
    const field = (key: string): xdr.ScVal => {
      const value = instance.get(key);
      if (value === undefined) throw new PoolNotFoundError(poolId, `instance storage has no ${key}`);
      return value;
    };
    let header: Omit<BlendPool, 'reserves' | 'timestamp' | 'latestLedger' | 'reserveList'>;
    try {
      for (const entry of head.entries) {
        const data = entry.val.contractData();
        if (data.key().switch().name === 'scvLedgerKeyContractInstance') {
          found = true;
          for (const item of data.val().instance().storage() ?? []) {
            instance.set(item.key().switch().name === 'scvSymbol' ? item.key().sym().toString() : '', item.val());
          }
        } else {
          reserveList = readVec(data.val(), 'ResList').map((a) => readAddress(a));
        }
      }
      if (!found) throw new PoolNotFoundError(poolId, 'no contract');
      const blnd = instance.get(POOL_INSTANCE_KEYS.blndToken);
      header = {
        id: poolId,
        name: readString(field(POOL_INSTANCE_KEYS.name)),
        admin: readAddress(field(POOL_INSTANCE_KEYS.admin)),
        backstop: readAddress(field(POOL_INSTANCE_KEYS.backstop)),
        blndToken: blnd === undefined ? undefined : readAddress(blnd),
        config: decodePoolConfig(field(POOL_INSTANCE_KEYS.config)),
      };
    } catch (error) {
      // A contract that stores other shapes under these keys is not a pool either.
      if (error instanceof TypeError) throw new PoolNotFoundError(poolId, error.message);
      throw error;
    }
    const list = reserveList ?? [];
    const reserves = await this.loadReserves(poolId, header.config, list);
    return {
      ...header,
      reserveList: list,
      reserves: reserves.list,
      timestamp: reserves.timestamp,
      latestLedger: reserves.latestLedger,
    };
  }

  private async loadReserves(poolId: string, config: PoolConfig, list: readonly string[]) {
    const keys = list.flatMap((asset) => [
      contractDataKey(poolId, resConfigKey(asset)),
      contractDataKey(poolId, resDataKey(asset)),
    ]);
    const response = list.length > 0 ? await this.options.ledger.getLedgerEntries(keys) : undefined;
    const found = new Map<string, xdr.ScVal>();
    for (const entry of response?.entries ?? []) {
      const data = entry.val.contractData();
      found.set(data.key().toXDR('base64'), data.val());
    }
    const timestamp = this.now();
    const reserves = list.map((asset): Reserve => {
      const cfg = found.get(resConfigKey(asset).toXDR('base64'));
      const dat = found.get(resDataKey(asset).toXDR('base64'));
      if (cfg === undefined || dat === undefined) throw new Error(`Blend pool ${poolId}: reserve ${asset} is missing`);
      const reserveConfig = decodeReserveConfig(cfg);
      // The contract never accrues backwards; a clock behind the ledger leaves the data as stored.
      const stored = decodeReserveData(dat);
      const data =
        timestamp > stored.lastTime ? accrueReserve(reserveConfig, stored, config.bstopRate, timestamp) : stored;
      return { asset, config: reserveConfig, data, scalar: 10n ** BigInt(reserveConfig.decimals) };
    });
    return { list: reserves, timestamp, latestLedger: response?.latestLedger ?? 0 };
  }

  /** SEP-40 `decimals()` and `lastprice(Asset::Stellar(asset))` for every reserve, simulated in parallel. */
  async loadPrices(pool: Pick<BlendPool, 'config' | 'reserveList'>): Promise<OraclePrices> {
    const oracle = pool.config.oracle;
    const [decimals, ...prices] = await Promise.all([
      this.simulate(oracle, 'decimals', []),
      ...pool.reserveList.map((asset) => this.simulate(oracle, 'lastprice', [encodeOracleAsset({ stellar: asset })])),
    ]);
    const map = new Map<string, PriceData>();
    pool.reserveList.forEach((asset, i) => {
      const value = prices[i];
      if (value !== undefined && !isVoid(value)) map.set(asset, decodePriceData(value));
    });
    return { oracle, decimals: Number(scValToNative(decimals)), prices: map };
  }

  /** Positions of many users in ONE `getLedgerEntries` call (the RPC client chunks it); absent = empty. */
  async loadPositions(poolId: string, users: readonly string[]): Promise<Map<string, Positions>> {
    const read = await this.loadPositionsAcross(users.map((user) => ({ pool: poolId, user })));
    return read.positions.get(poolId) ?? new Map();
  }

  /**
   * Positions of many (pool, user) pairs at once: one `getLedgerEntries` per 200 keys (the RPC's limit; our
   * `LedgerRpc` splits and sends the chunks together), with the ledger the answer reflects. Absent = empty.
   */
  async loadPositionsAcross(pairs: readonly PoolUser[]): Promise<PositionsRead> {
    const positions = new Map<string, Map<string, Positions>>();
    for (const { pool, user } of pairs) {
      let byUser = positions.get(pool);
      if (!byUser) positions.set(pool, (byUser = new Map()));
      byUser.set(user, emptyPositions());
    }
    if (pairs.length === 0) return { positions, latestLedger: 0 };
    const response = await this.options.ledger.getLedgerEntries(
      pairs.map(({ pool, user }) => contractDataKey(pool, positionsKey(user))),
    );
    for (const entry of response.entries) {
      const data = entry.val.contractData();
      const pool = Address.fromScAddress(data.contract()).toString();
      const user = readAddress(readVec(data.key(), 'Positions key')[1] ?? xdr.ScVal.scvVoid(), 'Positions user');
      positions.get(pool)?.set(user, decodePositions(data.val()));
    }
    return { positions, latestLedger: response.latestLedger };
  }

  /**
   * One wallet's positions in a pool and its account, in ONE `getLedgerEntries` call, with the ledger the answer
   * reflects (a pool read at that same ledger is still current).
   */
  async loadWallet(poolId: string, wallet: string, withAuction = false): Promise<WalletInPool> {
    const positionsEntry = contractDataKey(poolId, positionsKey(wallet));
    const accountKey = accountLedgerKey(wallet);
    // The pool keeps auctions in temporary storage (storage.rs `set_auction`).
    const auctionEntry = contractDataKey(poolId, auctionKey(wallet, USER_LIQUIDATION_AUCTION), 'temporary');
    const keys = withAuction ? [positionsEntry, accountKey, auctionEntry] : [positionsEntry, accountKey];
    const response = await this.options.ledger.getLedgerEntries(keys);
    let positions = emptyPositions();
    let account: AccountState | undefined;
    let auction = false;
    for (const entry of response.entries) {
      if (entry.val.switch().name === 'account') account = accountStateOf(wallet, entry.val);
      else if (entry.val.contractData().durability().name === 'temporary') auction = true;
      else positions = decodePositions(entry.val.contractData().val());
    }
    return { positions, account, latestLedger: response.latestLedger, ...(withAuction && { auction }) };
  }

  /** Underlying amounts, values and the health factor of one user's positions. */
  positionSummary(pool: BlendPool, prices: OraclePrices, positions: Positions): PositionSummary {
    return summarizePositions(pool.reserves, prices, positions);
  }

  private async simulate(contract: string, fn: string, args: xdr.ScVal[]): Promise<xdr.ScVal> {
    const tx = new TransactionBuilder(new Account(SIMULATION_SOURCE, '0'), {
      fee: '100',
      networkPassphrase: this.options.networkPassphrase,
    })
      .addOperation(new Contract(contract).call(fn, ...args))
      .setTimeout(0)
      .build();
    const result = await this.options.simulator.simulateTransaction(tx);
    if (!rpc.Api.isSimulationSuccess(result) || result.result === undefined) {
      const reason = rpc.Api.isSimulationError(result) ? result.error : 'no result';
      throw new Error(`Oracle ${contract}.${fn} simulation failed: ${reason}`);
    }
    return result.result.retval;
  }
}
