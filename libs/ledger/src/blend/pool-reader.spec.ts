import { Address, Keypair, Networks, StrKey, rpc, xdr } from '@stellar/stellar-sdk';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from './test-fixtures';
import { healthFactor, isHealthFactorUnder, positionData } from './health';
import {
  auctionKey,
  contractDataKey,
  encodePoolConfig,
  encodePositions,
  encodePriceData,
  encodeReserveConfig,
  encodeReserveData,
  positionsKey,
  resConfigKey,
  resDataKey,
  resListKey,
} from './layouts';
import { accountLedgerKey } from '../transactions/accounts';
import { BlendPoolReader, type LedgerEntriesSource, PoolNotFoundError, type SimulationSource } from './pool-reader';
import { scAddress, scString, scSymbol, scU32 } from './scval';

const contract = (seed: number) => StrKey.encodeContract(Buffer.alloc(32, seed));
const POOL = contract(1);
const USDC = contract(2);
const XLM = contract(3);
const ORACLE = contract(4);
const USER = Keypair.random().publicKey();
const EMPTY_USER = Keypair.random().publicKey();
const NOW = 1_700_000_000n;

function entry(key: xdr.ScVal, val: xdr.ScVal): [string, xdr.LedgerEntryData] {
  const data = new xdr.ContractDataEntry({
    ext: new xdr.ExtensionPoint(0),
    contract: new Address(POOL).toScAddress(),
    key,
    durability: xdr.ContractDataDurability.persistent(),
    val,
  });
  return [contractDataKey(POOL, key).toXDR('base64'), xdr.LedgerEntryData.contractData(data)];
}

const instance = xdr.ScVal.scvContractInstance(
  new xdr.ScContractInstance({
    executable: xdr.ContractExecutable.contractExecutableWasm(Buffer.alloc(32, 7)),
    storage: [
      ['Admin', scAddress(USER)],
      ['Backstop', scAddress(contract(5))],
      ['BLNDTkn', scAddress(contract(6))],
      [
        'Config',
        encodePoolConfig({ oracle: ORACLE, minCollateral: 0n, bstopRate: 2_000_000, status: 1, maxPositions: 4 }),
      ],
      ['Name', scString('Sandbox')],
    ].map(([k, v]) => new xdr.ScMapEntry({ key: scSymbol(k as string), val: v as xdr.ScVal })),
  }),
);

// USDC collateral (index 0), XLM debt (index 1); XLM has 10% utilization accruing for an hour.
const store = new Map<string, xdr.LedgerEntryData>([
  entry(xdr.ScVal.scvLedgerKeyContractInstance(), instance),
  entry(resListKey(), xdr.ScVal.scvVec([scAddress(USDC), scAddress(XLM)])),
  entry(resConfigKey(USDC), encodeReserveConfig(SAMPLE_RESERVE_CONFIG)),
  entry(resDataKey(USDC), encodeReserveData({ ...FRESH_RESERVE_DATA, bSupply: 1000_0000000n, lastTime: NOW })),
  entry(resConfigKey(XLM), encodeReserveConfig({ ...SAMPLE_RESERVE_CONFIG, index: 1 })),
  entry(
    resDataKey(XLM),
    encodeReserveData({
      ...FRESH_RESERVE_DATA,
      bSupply: 50_000_0000000n,
      dSupply: 5000_0000000n,
      lastTime: NOW - 3600n,
    }),
  ),
  entry(
    positionsKey(USER),
    encodePositions({
      collateral: new Map([[0, 1000_0000000n]]),
      liabilities: new Map([[1, 5000_0000000n]]),
      supply: new Map(),
    }),
  ),
]);

const calls: number[] = [];
const ledger: LedgerEntriesSource = {
  async getLedgerEntries(keys) {
    calls.push(keys.length);
    const entries = keys.flatMap((key) => {
      const val = store.get(key.toXDR('base64'));
      return val ? [{ key, val, lastModifiedLedgerSeq: 10 }] : [];
    });
    return { entries, latestLedger: 42 } as rpc.Api.GetLedgerEntriesResponse;
  },
};

const PRICES: Record<string, bigint> = { [USDC]: 1_0000000n, [XLM]: 1000000n };
const simulator: SimulationSource = {
  async simulateTransaction(tx) {
    const call = tx.operations[0];
    if (call?.type !== 'invokeHostFunction') throw new Error('unexpected op');
    const args = call.func.invokeContract();
    const fn = args.functionName().toString();
    const asset = args.args()[0]?.vec()?.[1];
    const retval =
      fn === 'decimals'
        ? scU32(7)
        : encodePriceData({ price: PRICES[Address.fromScVal(asset!).toString()]!, timestamp: NOW });
    return {
      id: '1',
      latestLedger: 42,
      events: [],
      _parsed: true,
      transactionData: undefined,
      minResourceFee: '0',
      result: { auth: [], retval },
    } as unknown as rpc.Api.SimulateTransactionResponse;
  },
};

describe('BlendPoolReader', () => {
  const reader = new BlendPoolReader({ ledger, simulator, networkPassphrase: Networks.TESTNET, now: () => NOW });

  it('loads a pool in two calls and accrues reserves to now', async () => {
    calls.length = 0;
    const pool = await reader.loadPool(POOL);
    expect(calls).toEqual([2, 4]);
    expect(pool).toMatchObject({ name: 'Sandbox', admin: USER, reserveList: [USDC, XLM], timestamp: NOW });
    expect(pool.reserves[0]?.data.lastTime).toBe(NOW);
    expect(pool.reserves[1]?.data.dRate).toBeGreaterThan(1_000_000_000_000n);
    expect(pool.reserves[1]?.data.lastTime).toBe(NOW);
  });

  it('loads many users in one call, empty when absent', async () => {
    calls.length = 0;
    const positions = await reader.loadPositions(POOL, [USER, EMPTY_USER]);
    expect(calls).toEqual([2]);
    expect(positions.get(USER)?.collateral.get(0)).toBe(1000_0000000n);
    expect(positions.get(EMPTY_USER)?.liabilities.size).toBe(0);
  });

  it('loads (pool, user) pairs across pools in one call, by pool then user, with the ledger', async () => {
    calls.length = 0;
    const other = contract(9);
    const read = await reader.loadPositionsAcross([
      { pool: POOL, user: USER },
      { pool: other, user: USER },
      { pool: POOL, user: EMPTY_USER },
    ]);
    expect(calls).toEqual([3]);
    expect(read.latestLedger).toBe(42);
    expect(read.positions.get(POOL)?.get(USER)?.liabilities.get(1)).toBe(5000_0000000n);
    expect(read.positions.get(POOL)?.get(EMPTY_USER)?.collateral.size).toBe(0);
    expect(read.positions.get(other)?.get(USER)?.collateral.size).toBe(0);
    expect(await reader.loadPositionsAcross([])).toEqual({ positions: new Map(), latestLedger: 0 });
  });

  it("loads one wallet's position and account in one call, with the ledger it reflects", async () => {
    const account = xdr.LedgerEntryData.account(
      new xdr.AccountEntry({
        accountId: Keypair.fromPublicKey(USER).xdrAccountId(),
        balance: xdr.Int64.fromString('100000000'),
        seqNum: xdr.Int64.fromString('171798691840'),
        numSubEntries: 0,
        inflationDest: null,
        flags: 0,
        homeDomain: '',
        thresholds: Buffer.from([1, 0, 0, 0]),
        signers: [],
        ext: new xdr.AccountEntryExt(0),
      }),
    );
    store.set(accountLedgerKey(USER).toXDR('base64'), account);
    calls.length = 0;
    const held = await reader.loadWallet(POOL, USER);
    expect(calls).toEqual([2]);
    expect(held).toMatchObject({ account: { address: USER, sequence: '171798691840' }, latestLedger: 42 });
    expect(held.positions.liabilities.get(1)).toBe(5000_0000000n);
    const nobody = await reader.loadWallet(POOL, EMPTY_USER);
    expect(nobody.account).toBeUndefined();
    expect(nobody.positions.collateral.size).toBe(0);
  });

  it("reads whether a user liquidation auction runs against the wallet, in the same call, when asked", async () => {
    const key = auctionKey(USER, 0);
    const data = new xdr.ContractDataEntry({
      ext: new xdr.ExtensionPoint(0),
      contract: new Address(POOL).toScAddress(),
      key,
      durability: xdr.ContractDataDurability.temporary(),
      val: xdr.ScVal.scvMap([]),
    });
    store.set(contractDataKey(POOL, key, 'temporary').toXDR('base64'), xdr.LedgerEntryData.contractData(data));
    calls.length = 0;
    const held = await reader.loadWallet(POOL, USER, true);
    expect(calls).toEqual([3]);
    expect(held.auction).toBe(true);
    expect(held.positions.liabilities.get(1)).toBe(5000_0000000n);
    expect((await reader.loadWallet(POOL, EMPTY_USER, true)).auction).toBe(false);
    expect((await reader.loadWallet(POOL, USER)).auction).toBeUndefined();
    store.delete(contractDataKey(POOL, key, 'temporary').toXDR('base64'));
  });

  it('says there is no pool at an address holding no contract or another kind of contract', async () => {
    await expect(reader.loadPool(contract(99))).rejects.toBeInstanceOf(PoolNotFoundError);
    await expect(reader.loadPool(contract(99))).rejects.toThrow('no contract');
  });

  it('summarizes a position with the contract health factor', async () => {
    const pool = await reader.loadPool(POOL);
    const prices = await reader.loadPrices(pool);
    expect(prices.decimals).toBe(7);
    const positions = (await reader.loadPositions(POOL, [USER])).get(USER)!;
    const summary = reader.positionSummary(pool, prices, positions);
    const debt = pool.reserves[1]!;
    // 1000 USDC x 0.9 = 900; debt 5000 XLM x dRate / 0.8 x 0.1
    const debtXlm = (5000_0000000n * debt.data.dRate + 999_999_999_999n) / 1_000_000_000_000n;
    const effDebt = (((debtXlm * 10_000_000n + 7_999_999n) / 8_000_000n) * 1000000n + 9_999_999n) / 10_000_000n;
    expect(summary.effectiveCollateralValue).toBe(900_0000000n);
    expect(summary.effectiveLiabilityValue).toBe(effDebt);
    expect(summary.healthFactor).toBe((900_0000000n * 10_000_000n) / effDebt);
    expect(summary.riskLevel).toBe('medium');
    expect(summary.reserves.map((r) => r.asset)).toEqual([USDC, XLM]);
  });
});

describe('health factor', () => {
  const reserves = [
    { asset: USDC, config: SAMPLE_RESERVE_CONFIG, data: FRESH_RESERVE_DATA, scalar: 10_000_000n },
    { asset: XLM, config: { ...SAMPLE_RESERVE_CONFIG, index: 1 }, data: FRESH_RESERVE_DATA, scalar: 10_000_000n },
  ];
  const price = (asset: string) => PRICES[asset]!;

  it('is effective collateral over effective liabilities: 900 / 625 = 1.44', () => {
    const pd = positionData(
      reserves,
      { collateral: new Map([[0, 1000_0000000n]]), liabilities: new Map([[1, 5000_0000000n]]), supply: new Map() },
      price,
      7,
    );
    expect(pd).toEqual({
      collateralBase: 900_0000000n,
      collateralRaw: 1000_0000000n,
      liabilityBase: 625_0000000n,
      liabilityRaw: 500_0000000n,
      scalar: 10_000_000n,
    });
    expect(healthFactor(pd)).toBe(14_400_000n);
  });

  it('is null without debt and ignores plain supply', () => {
    const pd = positionData(
      reserves,
      { collateral: new Map(), liabilities: new Map(), supply: new Map([[0, 5n]]) },
      price,
      7,
    );
    expect(healthFactor(pd)).toBeNull();
    expect(isHealthFactorUnder(pd)).toBe(false);
  });

  it('fails the submit check just under 1.0000100 and passes at it', () => {
    const at = (collateral: bigint) => ({
      collateralBase: collateral,
      collateralRaw: 0n,
      liabilityBase: 10_000_000n,
      liabilityRaw: 0n,
      scalar: 10_000_000n,
    });
    expect(isHealthFactorUnder(at(10_000_099n))).toBe(true);
    expect(isHealthFactorUnder(at(10_000_100n))).toBe(false);
    expect(healthFactor(at(10_000_099n))).toBe(10_000_099n);
  });
});
