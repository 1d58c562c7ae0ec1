import { LedgerRpc, PoolFactoryClient, SimulationFailedError } from '@rp/ledger';
import { StrKey } from '@stellar/stellar-sdk';
import { type LoadedScenario, type RunningSandbox, startSandbox } from '../../index';

/** The pool factory stand-in as the agent's signing rule reads it: `is_pool` by simulation through the RPC. */
describe('sandbox Blend pool factory', () => {
  let sandbox: RunningSandbox;
  let scenario: LoadedScenario;
  let factory: PoolFactoryClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    scenario = sandbox.scenario as LoadedScenario;
    factory = new PoolFactoryClient(new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' }), scenario.poolFactory);
  });

  afterAll(() => sandbox.close());

  it('knows the pools the sandbox deployed, and pools deployed later', async () => {
    expect(await factory.isPool(scenario.pool)).toBe(true);
    const later = sandbox.control.setup.deployPool('Later Pool', scenario.oracle);
    expect(await factory.isPool(later)).toBe(true);
  });

  it('does not know other contracts, even ones that answer like pools', async () => {
    expect(await factory.isPool(scenario.usdc)).toBe(false);
    expect(await factory.isPool(scenario.swapReceiver)).toBe(false);
    expect(await factory.isPool(StrKey.encodeContract(Buffer.alloc(32, 7)))).toBe(false);
    const impostor = sandbox.control.setup.deployPool('Impostor Pool', scenario.oracle, { registered: false });
    expect(await factory.isPool(impostor)).toBe(false);
  });

  it('cannot be asked at an address that is no factory', async () => {
    const nowhere = new PoolFactoryClient(factory['rpc'] as LedgerRpc, StrKey.encodeContract(Buffer.alloc(32, 8)));
    await expect(nowhere.isPool(scenario.pool)).rejects.toBeInstanceOf(SimulationFailedError);
  });
});
