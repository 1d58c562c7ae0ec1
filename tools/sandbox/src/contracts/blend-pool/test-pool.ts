import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import {
  type Positions,
  type ReserveConfig,
  decodePositions,
  encodeOracleAsset,
  encodeRequest,
  encodeReserveConfig,
} from '@rp/ledger';
import { DEFAULT_RESERVE } from '../../control/sandbox-setup';
import type { SandboxLedger } from '../../ledger/sandbox-ledger';
import { address, i128, string, u32 } from '../scval';
import { ORACLE_CONTRACT } from '../oracle';
import { TOKEN_CONTRACT } from '../token';
import { BLEND_POOL_CONTRACT } from './contract';

export const UNIT = 10_000_000n;

/** Both reserves of the test pool: c_factor 0.9, l_factor 0.8, target utilization 0.5, 7 decimals. */
export const TEST_RESERVE: ReserveConfig = {
  ...DEFAULT_RESERVE,
  index: 0,
  decimals: 7,
  cFactor: 9_000_000,
  lFactor: 8_000_000,
  util: 5_000_000,
  supplyCap: 10n ** 20n,
};

export interface TestRequest {
  requestType: number;
  address: string;
  amount: bigint;
}

export interface TestPool {
  readonly usdc: string;
  readonly xlm: string;
  readonly oracle: string;
  readonly pool: string;
  /** A privileged call (every authorization passes). */
  call(contract: string, fn: string, args: xdr.ScVal[]): xdr.ScVal;
  /** `submit` as `from` (from = spender = to). */
  submit(from: string, requests: TestRequest[]): Positions;
  setPrice(asset: string, price: bigint): void;
}

/**
 * For the pool's int-specs: USDC ($1) and XLM ($0.12) tokens, a 7-decimal oracle and an active Blend pool with both
 * as reserves (USDC index 0, XLM 1), at most 4 positions, a backstop that is a bare address.
 */
export function deployTestPool(ledger: SandboxLedger, salt: string, name = 'Sandbox'): TestPool {
  const admin = Keypair.random().publicKey();
  const call = (contract: string, fn: string, args: xdr.ScVal[]) => ledger.invokePrivileged(contract, fn, args);
  const token = (symbol: string) =>
    ledger.deployContract(TOKEN_CONTRACT, {
      salt: `${salt}:${symbol}`,
      constructorArgs: [address(admin), u32(7), string(symbol), string(symbol)],
    });
  const usdc = token('USDC');
  const xlm = token('XLM');
  const oracle = ledger.deployContract(ORACLE_CONTRACT, {
    salt: `${salt}:oracle`,
    constructorArgs: [address(admin), encodeOracleAsset({ other: 'USD' }), u32(7), u32(300)],
  });
  const setPrice = (asset: string, price: bigint) => {
    call(oracle, 'set_price', [encodeOracleAsset({ stellar: asset }), i128(price)]);
  };
  setPrice(usdc, UNIT);
  setPrice(xlm, 1_200_000n);
  const backstop = StrKey.encodeContract(Buffer.alloc(32, 9));
  const pool = ledger.deployContract(BLEND_POOL_CONTRACT, {
    salt: `${salt}:pool`,
    constructorArgs: [
      address(admin),
      string(name),
      address(oracle),
      u32(2_000_000),
      u32(4),
      i128(0n),
      address(backstop),
      address(backstop),
    ],
  });
  call(pool, 'set_status', [u32(0)]);
  call(pool, 'set_reserve', [address(usdc), encodeReserveConfig(TEST_RESERVE)]);
  call(pool, 'set_reserve', [address(xlm), encodeReserveConfig({ ...TEST_RESERVE, index: 1 })]);
  const submit = (from: string, requests: TestRequest[]) =>
    decodePositions(
      call(pool, 'submit', [
        address(from),
        address(from),
        address(from),
        xdr.ScVal.scvVec(requests.map(encodeRequest)),
      ]),
    );
  return { usdc, xlm, oracle, pool, call, submit, setPrice };
}
