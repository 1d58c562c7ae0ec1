import type { IncomingMessage, ServerResponse } from 'node:http';
import { StrKey } from '@stellar/stellar-sdk';
import type { ChannelStandIns } from '../channels';
import { HealthHistory } from '../health-history/health-history';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { FAULT_KINDS, type FaultInjector, type FaultKind } from '../rpc/faults';
import type { RpcEndpoint } from '../rpc/rpc-endpoint';
import { loadScenario, type LoadedScenario, type ScenarioName } from '../scenario';
import { BadRequestError, readJson, sendJson } from '../server/http-io';
import { auctionRoutes } from './auction-routes';
import { channelFault } from './channel-faults';
import { congestionRoutes } from './congestion-routes';
import { CongestionStorm } from './congestion-storm';
import { SandboxDirectory } from './directory';
import { oracleFeedRoutes } from './oracle-feed-routes';
import { OracleKeeper } from './oracle-keeper';
import { dumpSandbox, type SandboxDump } from './sandbox-dump';
import { SandboxLiquidator } from './sandbox-liquidator';
import { SandboxSetup, UNIT } from './sandbox-setup';

type Body = Record<string, unknown>;
type Route = {
  method: string;
  pattern: RegExp;
  run: (body: Body, params: string[], query: URLSearchParams) => unknown;
};

/** Native funds friendbot gives, as on testnet: 10 000 XLM. */
const FRIENDBOT_STROOPS = 10_000n * UNIT;

/**
 * The sandbox's control API under `/control`: fund accounts, deploy and mint tokens, create pools, reserves and
 * positions, set prices, close ledgers, inject faults into the RPC and the channels, reset, and dump state.
 * Loopback only, JSON in and out; amounts are integer strings in base units.
 */
export class ControlApi {
  readonly directory = new SandboxDirectory();
  readonly setup: SandboxSetup;
  readonly storm: CongestionStorm;
  /** Keeps every running oracle's prices fresh at each ledger close; feeds can be stopped and restarted. */
  readonly keeper: OracleKeeper;
  /** Each position's health factor over time, with alert and close markers: the page's chart. */
  readonly health: HealthHistory;
  readonly liquidator: SandboxLiquidator;
  scenario: LoadedScenario | undefined;
  private scenarioName: ScenarioName = 'empty';
  private readonly routes: Route[];

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly faults: FaultInjector,
    private readonly channels: ChannelStandIns,
    private readonly endpoint: RpcEndpoint,
  ) {
    this.setup = new SandboxSetup(ledger, this.directory);
    this.storm = new CongestionStorm(ledger);
    this.keeper = new OracleKeeper(ledger, this.setup);
    this.health = new HealthHistory(ledger, this.directory, channels.log);
    this.liquidator = new SandboxLiquidator(ledger, this.setup);
    this.routes = this.defineRoutes();
  }

  load(name: ScenarioName): LoadedScenario | undefined {
    this.scenarioName = name;
    this.scenario = loadScenario(name, this.setup);
    return this.scenario;
  }

  dump(): SandboxDump {
    return dumpSandbox(this.ledger, this.setup, {
      messages: this.channels.snapshot(),
      faults: this.faults.list(),
      rpcCalls: this.endpoint.callCounts,
    });
  }

  /** Handles the request if it is a control route; false when it is not one. */
  async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
    const method = req.method ?? 'GET';
    for (const route of this.routes) {
      const match = route.method === method ? route.pattern.exec(pathname) : null;
      if (!match) continue;
      const body = method === 'GET' || method === 'DELETE' ? {} : await readJson(req);
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new BadRequestError('body must be a JSON object');
      const query = new URL(req.url ?? '/', 'http://sandbox').searchParams;
      sendJson(res, 200, (await route.run(body as Body, match.slice(1), query)) ?? { ok: true });
      return true;
    }
    return false;
  }

  private defineRoutes(): Route[] {
    const { setup } = this;
    return [
      { method: 'GET', pattern: /^\/control\/state$/, run: () => this.dump() },
      { method: 'GET', pattern: /^\/control\/health-history$/, run: () => this.health.view() },
      { method: 'GET', pattern: /^\/control\/scenario$/, run: () => this.scenario ?? { name: 'empty' } },
      {
        method: 'GET',
        pattern: /^\/friendbot$/,
        run: (_body, _params, query) => {
          const addr = account(query.get('addr'), 'addr');
          setup.fund(addr, FRIENDBOT_STROOPS);
          return { funded: addr, stroops: FRIENDBOT_STROOPS.toString() };
        },
      },
      {
        method: 'POST',
        pattern: /^\/control\/accounts$/,
        run: (body) => {
          const addr = account(body.address, 'address');
          setup.fund(
            addr,
            amount(body.stroops ?? (FRIENDBOT_STROOPS as bigint).toString(), 'stroops'),
            optionalText(body.label),
          );
          return this.ledger.account(addr);
        },
      },
      {
        method: 'POST',
        pattern: /^\/control\/tokens$/,
        run: (body) => ({
          contractId: setup.deployToken(text(body.symbol, 'symbol'), {
            name: optionalText(body.name),
            decimals: optionalInt(body.decimals),
          }),
        }),
      },
      {
        method: 'POST',
        pattern: /^\/control\/tokens\/(C[A-Z2-7]{55})\/mint$/,
        run: (body, [token]) => setup.mint(token, account(body.to, 'to'), amount(body.amount, 'amount')),
      },
      {
        method: 'POST',
        pattern: /^\/control\/oracles$/,
        run: (body) => ({ contractId: setup.deployOracle({ decimals: optionalInt(body.decimals) }) }),
      },
      {
        method: 'POST',
        pattern: /^\/control\/oracles\/(C[A-Z2-7]{55})\/prices$/,
        run: (body, [oracle]) => setup.setPrice(oracle, contract(body.asset, 'asset'), amount(body.price, 'price')),
      },
      {
        method: 'POST',
        pattern: /^\/control\/pools$/,
        run: (body) => ({ contractId: setup.deployPool(text(body.name, 'name'), contract(body.oracle, 'oracle')) }),
      },
      {
        method: 'POST',
        pattern: /^\/control\/pools\/(C[A-Z2-7]{55})\/reserves$/,
        run: (body, [pool]) => ({
          index: setup.addReserve(pool, contract(body.asset, 'asset'), reserveOverrides(body)),
        }),
      },
      {
        method: 'POST',
        pattern: /^\/control\/pools\/(C[A-Z2-7]{55})\/status$/,
        run: (body, [pool]) => {
          const status = optionalInt(body.status);
          if (status === undefined || status < 0 || status > 6) throw new BadRequestError('status must be 0..6');
          setup.setPoolStatus(pool, status);
          return { pool, status };
        },
      },
      {
        method: 'POST',
        pattern: /^\/control\/pools\/(C[A-Z2-7]{55})\/positions$/,
        run: (body, [pool]) =>
          setup.openPosition(pool, {
            user: account(body.user, 'user'),
            supplyCollateral: legs(body.supplyCollateral, 'supplyCollateral'),
            borrow: legs(body.borrow, 'borrow'),
            supply: legs(body.supply, 'supply'),
          }),
      },
      {
        method: 'POST',
        pattern: /^\/control\/ledger\/close$/,
        run: (body) => {
          const count = optionalInt(body.count) ?? 1;
          if (count < 1 || count > 1000) throw new BadRequestError('count must be between 1 and 1000');
          for (let i = 0; i < count; i += 1) this.ledger.closeLedger();
          return this.ledger.latest;
        },
      },
      ...congestionRoutes(this.ledger, this.storm),
      ...oracleFeedRoutes(this.keeper),
      ...auctionRoutes(this.ledger, this.directory, this.liquidator),
      { method: 'GET', pattern: /^\/control\/faults$/, run: () => this.faults.list() },
      { method: 'POST', pattern: /^\/control\/faults$/, run: (body) => this.addFault(body) },
      { method: 'DELETE', pattern: /^\/control\/faults$/, run: () => this.faults.clear() },
      {
        method: 'POST',
        pattern: /^\/control\/channels\/(telegram|hooks|smtp)\/faults$/,
        run: (body, [channel]) => channelFault(this.channels, channel, body),
      },
      {
        method: 'GET',
        pattern: /^\/control\/messages$/,
        run: (_body, _params, query) =>
          this.channels.log.list({
            channel: (query.get('channel') ?? undefined) as never,
            destination: query.get('destination') ?? undefined,
          }),
      },
      {
        method: 'POST',
        pattern: /^\/control\/reset$/,
        run: (body) => {
          const name = body.scenario === undefined ? this.scenarioName : body.scenario;
          if (name !== 'demo' && name !== 'empty') throw new BadRequestError('scenario must be "demo" or "empty"');
          this.storm.forget();
          this.keeper.forget();
          this.liquidator.forget();
          this.ledger.reset();
          this.faults.clear();
          this.channels.reset();
          this.endpoint.callCounts.clear();
          this.directory.clear();
          this.health.clear();
          return this.load(name) ?? { name: 'empty' };
        },
      },
    ];
  }

  private addFault(body: Body): unknown {
    const kind = body.kind as FaultKind;
    if (!FAULT_KINDS.includes(kind)) throw new BadRequestError(`kind must be one of ${FAULT_KINDS.join(', ')}`);
    try {
      return this.faults.add({
        kind,
        method: optionalText(body.method),
        count: body.count === 'forever' ? Infinity : optionalInt(body.count),
        latencyMs: optionalInt(body.latencyMs),
        status: optionalInt(body.status),
        retryAfter: optionalInt(body.retryAfter),
      });
    } catch (error) {
      throw new BadRequestError((error as Error).message);
    }
  }
}

function account(value: unknown, field: string): string {
  if (typeof value !== 'string' || !StrKey.isValidEd25519PublicKey(value))
    throw new BadRequestError(`${field} must be a G-address`);
  return value;
}

function contract(value: unknown, field: string): string {
  if (typeof value !== 'string' || !StrKey.isValidContract(value))
    throw new BadRequestError(`${field} must be a C-address`);
  return value;
}

function amount(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !/^(0|[1-9]\d{0,37})$/.test(value)) {
    throw new BadRequestError(`${field} must be a non-negative integer string in base units`);
  }
  return BigInt(value);
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64)
    throw new BadRequestError(`${field} must be a string of 1-64 characters`);
  return value;
}

function optionalText(value: unknown): string | undefined {
  return value === undefined ? undefined : text(value, 'label');
}

function optionalInt(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new BadRequestError('expected a non-negative integer');
  return value;
}

function legs(value: unknown, field: string): { asset: string; amount: bigint }[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new BadRequestError(`${field} must be an array of {asset, amount}`);
  return value.map((leg: { asset?: unknown; amount?: unknown }) => ({
    asset: contract(leg?.asset, `${field}.asset`),
    amount: amount(leg?.amount, `${field}.amount`),
  }));
}

function reserveOverrides(body: Body): Record<string, number> {
  const names = ['cFactor', 'lFactor', 'util', 'maxUtil', 'rBase', 'rOne', 'rTwo', 'rThree', 'reactivity', 'decimals'];
  return Object.fromEntries(
    names.flatMap((name) => (body[name] === undefined ? [] : [[name, optionalInt(body[name]) as number]])),
  );
}
