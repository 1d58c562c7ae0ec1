import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import {
  ContractReserve,
  PoolConfig as SdkPoolConfig,
  Positions as SdkPositions,
  ReserveConfigV2,
  ReserveData as SdkReserveData,
} from '@blend-capital/blend-sdk';
import { SAMPLE_RESERVE_CONFIG, FRESH_RESERVE_DATA } from './test-fixtures';
import {
  decodeFlashLoan,
  decodeOracleAsset,
  decodePoolConfig,
  decodePositions,
  decodePriceData,
  decodeRequest,
  decodeReserve,
  decodeReserveConfig,
  decodeReserveData,
  encodeFlashLoan,
  encodeOracleAsset,
  encodePoolConfig,
  encodePositions,
  encodePriceData,
  encodeRequest,
  encodeReserve,
  encodeReserveConfig,
  encodeReserveData,
  positionsKey,
  resConfigKey,
  resListKey,
} from './layouts';

const contract = (seed: number) => StrKey.encodeContract(Buffer.alloc(32, seed));
const USDC = contract(1);
const ORACLE = contract(2);
const USER = Keypair.random().publicKey();
const mapKeys = (v: xdr.ScVal) => (v.map() ?? []).map((e) => e.key().sym().toString());

describe('Blend v2 layouts', () => {
  const poolConfig = { oracle: ORACLE, minCollateral: 5n, bstopRate: 2_000_000, status: 1, maxPositions: 4 };
  const data = { ...FRESH_RESERVE_DATA, bSupply: 10n, dSupply: 3n, backstopCredit: 1n, lastTime: 1_700_000_000n };
  const positions = {
    liabilities: new Map([[1, 30n]]),
    collateral: new Map([
      [2, 7n],
      [0, 100n],
    ]),
    supply: new Map<number, bigint>(),
  };

  it('round-trips every value', () => {
    expect(decodePoolConfig(encodePoolConfig(poolConfig))).toEqual(poolConfig);
    expect(decodeReserveConfig(encodeReserveConfig(SAMPLE_RESERVE_CONFIG))).toEqual(SAMPLE_RESERVE_CONFIG);
    expect(decodeReserveData(encodeReserveData(data))).toEqual(data);
    expect(decodePositions(encodePositions(positions))).toEqual(positions);
    const request = { requestType: 2, address: USDC, amount: 1_000_0000000n };
    expect(decodeRequest(encodeRequest(request))).toEqual(request);
    const loan = { contract: ORACLE, asset: USDC, amount: 9n };
    expect(decodeFlashLoan(encodeFlashLoan(loan))).toEqual(loan);
    const reserve = { asset: USDC, config: SAMPLE_RESERVE_CONFIG, data, scalar: 10_000_000n };
    expect(decodeReserve(encodeReserve(reserve))).toEqual(reserve);
    expect(decodeOracleAsset(encodeOracleAsset({ stellar: USDC }))).toEqual({ stellar: USDC });
    expect(decodeOracleAsset(encodeOracleAsset({ other: 'USD' }))).toEqual({ other: 'USD' });
    expect(decodePriceData(encodePriceData({ price: 12n, timestamp: 3n }))).toEqual({ price: 12n, timestamp: 3n });
  });

  it('encodes structs as maps sorted by field name, and position maps by index', () => {
    expect(mapKeys(encodeReserveConfig(SAMPLE_RESERVE_CONFIG))).toEqual([
      'c_factor',
      'decimals',
      'enabled',
      'index',
      'l_factor',
      'max_util',
      'r_base',
      'r_one',
      'r_three',
      'r_two',
      'reactivity',
      'supply_cap',
      'util',
    ]);
    expect(mapKeys(encodeRequest({ requestType: 0, address: USDC, amount: 1n }))).toEqual([
      'address',
      'amount',
      'request_type',
    ]);
    const collateral = encodePositions(positions).map()?.[0]?.val().map() ?? [];
    expect(collateral.map((e) => e.key().u32())).toEqual([0, 2]);
  });

  it('is read unchanged by the blend-sdk parsers', () => {
    const sdkConfig = SdkPoolConfig.fromScVal(encodePoolConfig(poolConfig));
    expect(sdkConfig).toMatchObject({
      backstopRate: 2_000_000,
      maxPositions: 4,
      oracle: ORACLE,
      status: 1,
      minCollateral: 5n,
    });
    expect(ReserveConfigV2.fromScVal(encodeReserveConfig(SAMPLE_RESERVE_CONFIG))).toMatchObject({
      c_factor: 9_000_000,
      l_factor: 8_000_000,
      supply_cap: SAMPLE_RESERVE_CONFIG.supplyCap,
      enabled: true,
    });
    expect(SdkReserveData.fromScVal(encodeReserveData(data))).toMatchObject({
      dRate: data.dRate,
      bSupply: 10n,
      interestRateModifier: data.irMod,
      lastTime: 1_700_000_000,
    });
    const sdkPositions = SdkPositions.fromScVal(encodePositions(positions));
    expect(sdkPositions.collateral.get(2)).toBe(7n);
    expect(sdkPositions.liabilities.get(1)).toBe(30n);
    const sdkReserve = ContractReserve.fromScVal(
      encodeReserve({ asset: USDC, config: SAMPLE_RESERVE_CONFIG, data, scalar: 10_000_000n }),
    );
    expect(sdkReserve.asset).toBe(USDC);
  });

  it('builds the storage keys the sdk asks for', () => {
    expect(resListKey().sym().toString()).toBe('ResList');
    const cfgKey = resConfigKey(USDC).vec() ?? [];
    expect(cfgKey[0]?.sym().toString()).toBe('ResConfig');
    expect(SdkPositions.ledgerKey(contract(9), USER).contractData().key().toXDR('base64')).toBe(
      positionsKey(USER).toXDR('base64'),
    );
  });

  it('rejects values of the wrong type', () => {
    expect(() => decodeReserveData(encodeReserveConfig(SAMPLE_RESERVE_CONFIG))).toThrow(/missing field|expected/);
  });
});
