import { SandboxLedger } from '../ledger/sandbox-ledger';
import { SandboxDirectory } from './directory';
import { KEEPER_HEARTBEAT_SECONDS, OracleKeeper } from './oracle-keeper';
import { SandboxSetup } from './sandbox-setup';

/** The keeper on a sandbox ledger whose clock the test moves: the heartbeat is counted in ledger time. */
describe('OracleKeeper', () => {
  let clock: number;
  let ledger: SandboxLedger;
  let setup: SandboxSetup;
  let keeper: OracleKeeper;
  let oracle: string;
  let asset: string;

  const stamp = () => keeper.feed(oracle).prices[0].timestamp;
  const closeAfter = (seconds: number) => {
    clock += seconds * 1000;
    return ledger.closeLedger().closeTime.toString();
  };

  beforeEach(() => {
    clock = 1_800_000_000_000;
    ledger = new SandboxLedger({ now: () => clock });
    setup = new SandboxSetup(ledger, new SandboxDirectory());
    keeper = new OracleKeeper(ledger, setup);
    oracle = setup.deployOracle();
    asset = setup.deployToken('XLM');
    setup.setPrice(oracle, asset, 3_000_000n);
  });

  it('publishes a running price again at the first close 30 s or more after its stamp, not before', () => {
    const first = stamp();
    closeAfter(Number(KEEPER_HEARTBEAT_SECONDS) - 1);
    expect(stamp()).toBe(first);
    const close = closeAfter(1);
    expect(stamp()).toBe(close);
    expect(keeper.feed(oracle).prices[0]).toMatchObject({ price: '3000000', ageSeconds: 0, running: true });
  });

  it('leaves a stopped feed alone until it is restarted', () => {
    keeper.stop(oracle, { asset });
    const first = stamp();
    closeAfter(600);
    expect(stamp()).toBe(first);
    expect(keeper.feed(oracle).prices[0]).toMatchObject({ ageSeconds: 600, running: false });
    keeper.start(oracle, asset);
    expect(stamp()).toBe(first); // restarting publishes nothing by itself: the next close does
    const close = closeAfter(1);
    expect(stamp()).toBe(close);
  });

  it('stamps a stopped price in the past on request, and a reset runs every feed again', () => {
    closeAfter(5);
    keeper.stop(oracle, { ageSeconds: 400 });
    expect(keeper.feed(oracle)).toMatchObject({ running: false, prices: [{ ageSeconds: 400, running: false }] });
    keeper.forget();
    const close = closeAfter(1);
    expect(stamp()).toBe(close);
  });
});
