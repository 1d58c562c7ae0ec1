import { Keypair, Networks, rpc } from '@stellar/stellar-sdk';
import { PoolV2, PositionsEstimate, type Network } from '@blend-capital/blend-sdk';
import { BlendPoolReader, REQUEST_TYPES, ledgerEntriesOf } from '@rp/ledger';
import { address, i128, toBigInt } from '../scval';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { type TestPool, UNIT, deployTestPool } from './test-pool';

describe('sandbox Blend pool read by the unmodified blend-sdk', () => {
  let sandbox: RunningSandbox;
  const lender = Keypair.random().publicKey();
  const user = Keypair.random().publicKey();
  let usdc: string;
  let xlm: string;
  let pool: string;
  let submit: TestPool['submit'];
  const balance = (token: string, owner: string) => toBigInt(sandbox.ledger.view(token, 'balance', [address(owner)]));

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 200, scenario: 'empty' });
    const fixture = deployTestPool(sandbox.ledger, 'it');
    ({ usdc, xlm, pool, submit } = fixture);
    fixture.call(usdc, 'mint', [address(user), i128(1_000n * UNIT)]);
    fixture.call(xlm, 'mint', [address(lender), i128(100_000n * UNIT)]);
    fixture.call(xlm, 'mint', [address(user), i128(10n * UNIT)]);
    submit(lender, [{ requestType: REQUEST_TYPES.Supply, address: xlm, amount: 100_000n * UNIT }]);
    submit(user, [
      { requestType: REQUEST_TYPES.SupplyCollateral, address: usdc, amount: 1_000n * UNIT },
      { requestType: REQUEST_TYPES.Borrow, address: xlm, amount: 5_000n * UNIT },
    ]);
    sandbox.ledger.closeLedger();
  });

  afterAll(() => sandbox?.close());

  it('agrees with BlendPoolReader on the health factor', async () => {
    const network: Network = { rpc: sandbox.rpcUrl, passphrase: Networks.TESTNET, opts: { allowHttp: true } };
    const sdkPool = await PoolV2.load(network, pool);
    const sdkOracle = await sdkPool.loadOracle();
    const sdkUser = await sdkPool.loadUser(user);
    const estimate = PositionsEstimate.build(sdkPool, sdkOracle, sdkUser.positions);
    // The sdk has no "health factor" field: it reports borrowLimit = effective liabilities / effective collateral
    // (totalEffectiveLiabilities / totalEffectiveCollateral), so the health factor is its inverse.
    const sdkHealthFactor = estimate.totalEffectiveCollateral / estimate.totalEffectiveLiabilities;
    expect(1 / estimate.borrowLimit).toBeCloseTo(sdkHealthFactor, 9);

    const server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
    const reader = new BlendPoolReader({
      ledger: ledgerEntriesOf(server),
      simulator: server,
      networkPassphrase: Networks.TESTNET,
      now: () => BigInt(sdkPool.timestamp),
    });
    const ours = await reader.loadPool(pool);
    const prices = await reader.loadPrices(ours);
    const positions = (await reader.loadPositions(pool, [user])).get(user)!;
    const summary = reader.positionSummary(ours, prices, positions);
    expect(summary.healthFactor).not.toBeNull();
    const ourHealthFactor = Number(summary.healthFactor) / 1e7;
    // 1000 x 0.9 / (5000 x 0.12 / 0.8) = 1.2, a hair less once interest accrues
    expect(ourHealthFactor).toBeGreaterThan(1.19);
    expect(ourHealthFactor).toBeLessThanOrEqual(1.2);
    expect(Math.abs(ourHealthFactor - sdkHealthFactor) / sdkHealthFactor).toBeLessThan(1e-6);
    expect(summary.riskLevel).toBe('high');
    expect(sdkPool.metadata.name).toBe('Sandbox');
    expect(sdkUser.positions.collateral.get(0)).toBe(positions.collateral.get(0));
  });

  it('enforces the health check, caps withdrawals and refunds over-repayment', () => {
    expect(() => submit(user, [{ requestType: REQUEST_TYPES.Borrow, address: xlm, amount: 1_000n * UNIT }])).toThrow(
      /#1205|1205/,
    );
    const before = balance(xlm, user);
    const after = submit(user, [{ requestType: REQUEST_TYPES.Repay, address: xlm, amount: 5_010n * UNIT }]);
    expect(after.liabilities.size).toBe(0);
    const paid = before - balance(xlm, user);
    expect(paid).toBeGreaterThanOrEqual(5_000n * UNIT);
    expect(paid).toBeLessThan(5_001n * UNIT);
    const withdrawn = submit(user, [
      { requestType: REQUEST_TYPES.WithdrawCollateral, address: usdc, amount: 2_000n * UNIT },
    ]);
    expect(withdrawn.collateral.size).toBe(0);
    expect(balance(usdc, user)).toBe(1_000n * UNIT);
  });
});
