import type { AccountBalance } from '@rp/ledger';
import type { BuiltClose } from '../close/built-close';
import type { AgentService, BuildOptions, RiskReading } from '../service/agent-service';
import type { MockService } from './mock-service';

/** The played wallet's account: a fixed sequence number and 100 XLM for fees. */
const PLAYED_SEQUENCE = '1000';
const PLAYED_BALANCE_STROOPS = 100n * 10_000_000n;

/** `SERVICE_MOCK=true`: the mock's story (`MockService`) as the agent's service. No ledger is read. */
export class PlayedService implements AgentService {
  readonly mode = 'mock';

  constructor(
    private readonly wallet: string,
    private readonly mock: MockService,
  ) {}

  async read(): Promise<RiskReading> {
    const played = this.mock.risk();
    return {
      mode: 'mock',
      source: 'mock',
      positions: played.positions,
      prices: async () => ({ prices: played.prices, ledger: null }),
    };
  }

  async account(): Promise<AccountBalance> {
    return { address: this.wallet, sequence: PLAYED_SEQUENCE, nativeBalance: PLAYED_BALANCE_STROOPS, latestLedger: 0 };
  }

  /** Nothing played is sent: no fee to keep up with. */
  async networkFee(): Promise<undefined> {
    return undefined;
  }

  async build(_pool: string, options: BuildOptions = {}): Promise<BuiltClose> {
    return this.mock.build(options.accountSequence ?? '1');
  }
}
