import { Keypair, hash, xdr } from '@stellar/stellar-sdk';
import {
  REQUEST_TYPES,
  type Positions,
  blendScVal,
  decodePoolConfig,
  encodeOracleAsset,
  encodePositions,
  encodeRequest,
  encodeReserveConfig,
  positionsKey,
  type ReserveConfig,
} from '@rp/ledger';
import { BLEND_POOL_CONTRACT } from '../contracts/blend-pool';
import { ORACLE_CONTRACT } from '../contracts/oracle';
import { POOL_FACTORY_CONTRACT } from '../contracts/pool-factory';
import { address, i128, string, toBigInt, u32 } from '../contracts/scval';
import { SWAP_RECEIVER_CONTRACT } from '../contracts/swap-receiver';
import { TOKEN_CONTRACT } from '../contracts/token';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import type { SandboxDirectory } from './directory';

/** One XLM in stroops; also one unit of every 7-decimal token. */
export const UNIT = 10_000_000n;

/** The sandbox's administrator: owns every contract the setup deploys. Its key is derived, so it is stable. */
export const SANDBOX_ADMIN = Keypair.fromRawEd25519Seed(hash(Buffer.from('rp-sandbox:admin')));

/** Reserve settings a new reserve gets unless told otherwise (7-decimal factors, Blend testnet-like rates). */
export const DEFAULT_RESERVE: Omit<ReserveConfig, 'index' | 'decimals'> = {
  cFactor: 7_500_000,
  lFactor: 9_000_000,
  util: 8_000_000,
  maxUtil: 9_500_000,
  rBase: 100_000,
  rOne: 500_000,
  rTwo: 5_000_000,
  rThree: 15_000_000,
  reactivity: 20,
  supplyCap: 2n ** 100n,
  enabled: true,
};

export interface PositionRequest {
  readonly user: string;
  readonly supplyCollateral?: readonly { asset: string; amount: bigint }[];
  readonly borrow?: readonly { asset: string; amount: bigint }[];
  readonly supply?: readonly { asset: string; amount: bigint }[];
}

/**
 * The privileged operations behind the control API and the demo scenario. Each one is a real contract call on
 * the sandbox ledger (so events and entries are genuine); only authorization is waived.
 */
export class SandboxSetup {
  constructor(
    private readonly ledger: SandboxLedger,
    readonly directory: SandboxDirectory,
  ) {}

  fund(addressToFund: string, stroops: bigint, label?: string): void {
    this.ledger.fundAccount(addressToFund, stroops);
    this.directory.addAccount({
      label: label ?? `account ${this.directory.accounts.length + 1}`,
      address: addressToFund,
    });
  }

  deployToken(symbol: string, options: { name?: string; decimals?: number; address?: string } = {}): string {
    const decimals = options.decimals ?? 7;
    const contractId = this.ledger.deployContract(TOKEN_CONTRACT, {
      salt: `token:${symbol}`,
      address: options.address,
      constructorArgs: [
        address(SANDBOX_ADMIN.publicKey()),
        u32(decimals),
        string(options.name ?? symbol),
        string(symbol),
      ],
    });
    this.directory.tokens.push({ symbol, contractId, decimals });
    return contractId;
  }

  mint(token: string, to: string, amount: bigint): void {
    this.ledger.invokePrivileged(token, 'mint', [address(to), i128(amount)]);
  }

  /** Moves tokens between holders as if `from` had signed the transfer. */
  transfer(token: string, from: string, to: string, amount: bigint): void {
    this.ledger.invokePrivileged(token, 'transfer', [address(from), address(to), i128(amount)]);
  }

  balance(token: string, owner: string): bigint {
    return toBigInt(this.ledger.view(token, 'balance', [address(owner)]));
  }

  deployOracle(options: { decimals?: number; salt?: string } = {}): string {
    const decimals = options.decimals ?? 7;
    const base = encodeOracleAsset({ other: 'USD' });
    const contractId = this.ledger.deployContract(ORACLE_CONTRACT, {
      salt: options.salt ?? `oracle:${this.directory.oracles.length}`,
      constructorArgs: [address(SANDBOX_ADMIN.publicKey()), base, u32(decimals), u32(300)],
    });
    this.directory.oracles.push({ contractId, decimals });
    return contractId;
  }

  /** Sets a price, stamped with the next ledger's close time, or with `timestamp` (unix seconds) when given. */
  setPrice(oracle: string, asset: string, price: bigint, timestamp?: bigint): void {
    const stamp = timestamp === undefined ? [] : [blendScVal.scU64(timestamp)];
    this.ledger.invokePrivileged(oracle, 'set_price', [encodeOracleAsset({ stellar: asset }), i128(price), ...stamp]);
  }

  /** A pool registered with the sandbox's pool factory, unless `registered: false` (an impostor the factory does not know). */
  deployPool(
    name: string,
    oracle: string,
    options: { maxPositions?: number; minCollateral?: bigint; registered?: boolean } = {},
  ): string {
    const backstop = this.ledger.deployContract(TOKEN_CONTRACT, {
      salt: `backstop:${name}`,
      constructorArgs: [address(SANDBOX_ADMIN.publicKey()), u32(7), string('Backstop placeholder'), string('BSTOP')],
    });
    const contractId = this.ledger.deployContract(BLEND_POOL_CONTRACT, {
      salt: `pool:${name}`,
      constructorArgs: [
        address(SANDBOX_ADMIN.publicKey()),
        string(name),
        address(oracle),
        u32(1_000_000),
        u32(options.maxPositions ?? 8),
        i128(options.minCollateral ?? 0n),
        address(backstop),
        address(backstop),
      ],
    });
    this.ledger.invokePrivileged(contractId, 'set_status', [u32(0)]);
    if (options.registered !== false)
      this.ledger.invokePrivileged(this.poolFactory(), 'register', [address(contractId)]);
    this.directory.pools.push({ name, contractId, oracle, reserves: [] });
    return contractId;
  }

  /**
   * The sandbox's Blend pool factory (deployed with the first pool): `is_pool` is true for every pool `deployPool`
   * made, as the real factory answers for the pools it deployed. Agents read it at BLEND_POOL_FACTORY.
   */
  poolFactory(): string {
    this.directory.poolFactory ??= this.ledger.deployContract(POOL_FACTORY_CONTRACT, {
      salt: 'pool-factory',
      constructorArgs: [address(SANDBOX_ADMIN.publicKey())],
    });
    return this.directory.poolFactory;
  }

  /**
   * Sets a pool's `min_collateral` (oracle base units) as its admin would (`update_pool`), keeping its backstop rate
   * and maximum positions: Blend refuses a health-checked `submit` that leaves debt with less effective collateral.
   */
  setMinCollateral(pool: string, minCollateral: bigint): void {
    const config = decodePoolConfig(this.ledger.view(pool, 'get_config', []));
    this.ledger.invokePrivileged(pool, 'update_pool', [
      u32(config.bstopRate),
      u32(config.maxPositions),
      i128(minCollateral),
    ]);
  }

  /** Sets a pool's status as its admin would: 0-1 active, 2-3 on ice, 4-5 frozen. */
  setPoolStatus(pool: string, status: number): void {
    this.ledger.invokePrivileged(pool, 'set_status', [u32(status)]);
  }

  addReserve(pool: string, asset: string, config: Partial<Omit<ReserveConfig, 'index'>> = {}): number {
    const decimals = config.decimals ?? this.directory.token(asset)?.decimals ?? 7;
    const full: ReserveConfig = { ...DEFAULT_RESERVE, ...config, decimals, index: 0 };
    const index = this.ledger.invokePrivileged(pool, 'set_reserve', [address(asset), encodeReserveConfig(full)]).u32();
    this.directory.addReserve(pool, asset);
    return index;
  }

  /** Mints what the user supplies, then submits the requests as the user would (authorization waived). */
  openPosition(pool: string, request: PositionRequest): void {
    const requests: xdr.ScVal[] = [];
    for (const { asset, amount } of request.supply ?? []) {
      this.mint(asset, request.user, amount);
      requests.push(encodeRequest({ requestType: REQUEST_TYPES.Supply, address: asset, amount }));
    }
    for (const { asset, amount } of request.supplyCollateral ?? []) {
      this.mint(asset, request.user, amount);
      requests.push(encodeRequest({ requestType: REQUEST_TYPES.SupplyCollateral, address: asset, amount }));
    }
    for (const { asset, amount } of request.borrow ?? []) {
      requests.push(encodeRequest({ requestType: REQUEST_TYPES.Borrow, address: asset, amount }));
    }
    const user = address(request.user);
    this.ledger.invokePrivileged(pool, 'submit', [user, user, user, xdr.ScVal.scvVec(requests)]);
  }

  /** `count` new account addresses (random keys, no account on the ledger): users for seeded positions. */
  newAddresses(count: number): string[] {
    return Array.from({ length: count }, () => Keypair.random().publicKey());
  }

  /**
   * Benchmark seeding: stores `positions` (reserve index -> b/dTokens) as each user's Positions entry of the pool
   * directly, without the pool's checks, token movements, totals or events. Use `openPosition` for anything a
   * test asserts about the pool itself; this only makes many positions exist quickly.
   */
  seedPositions(pool: string, users: readonly string[], positions: Positions): void {
    const value = encodePositions(positions);
    this.ledger.seedContractData(
      pool,
      users.map((user) => [positionsKey(user), value] as const),
    );
  }

  deploySwapReceiver(oracle: string, feeBps: number, routes: readonly [string, string][]): string {
    const contractId = this.ledger.deployContract(SWAP_RECEIVER_CONTRACT, {
      salt: `receiver:${oracle}:${this.directory.receivers.length}`,
      constructorArgs: [address(SANDBOX_ADMIN.publicKey()), address(oracle), u32(feeBps)],
    });
    for (const [tokenIn, tokenOut] of routes) {
      this.ledger.invokePrivileged(contractId, 'set_route', [address(tokenIn), address(tokenOut)]);
    }
    this.directory.receivers.push({ label: `swap receiver ${this.directory.receivers.length + 1}`, contractId });
    return contractId;
  }
}
