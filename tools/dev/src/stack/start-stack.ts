import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlendPoolReader, LedgerRpc, LedgerWallet, summarizePositions } from '@rp/ledger';
import {
  type LoadedScenario,
  type RunningSandbox,
  type SandboxOptions,
  UNIT,
  startSandbox,
  trustSandboxCertificate,
} from '@rp/sandbox';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { Networks, TransactionBuilder } from '@stellar/stellar-sdk';
import { AppProcess } from '../app-process';
import { freePort } from '../ports';
import { APP_WIRING, type AppName, START_ORDER, type WiringContext, wiredSettings } from './app-wiring';
import { type BorrowerPosition, openBorrower } from './borrowers';
import { type StackApi, stackApi } from './stack-api';
import { removeKeys } from './stack-keys';

/** Admin key of the partner-key and DLQ routes in a stack (a test value, never a real one). */
export const STACK_ADMIN_KEY = 'e2e-admin-key-0123456789';

export type Settings = Record<string, string | undefined>;
/**
 * Settings per app, and for every app (`all`); `undefined` removes a setting the wiring gives. A function gets
 * what the wiring gives the app (to add to a list: `NOTIFICATIONS_WEBHOOK_HOSTS`).
 */
export type StackEnv = Partial<Record<AppName | 'all', Settings | ((wired: Record<string, string>) => Settings)>>;

export interface StackOptions {
  /** The apps to start (in START_ORDER, whatever the order here); apps may also be added later (`start`). */
  apps: readonly AppName[];
  /** One process per role (notifications: `NOTIFICATIONS_ROLE`; txb: replicas); one process by default. */
  roles?: Partial<Record<AppName, readonly string[]>>;
  env?: StackEnv;
  /** The sandbox's scenario: `demo` (pool, USDC, sponsor, payment receiver; the default) or `empty`. */
  scenario?: 'demo' | 'empty';
  /** The sandbox's ledger close interval; 250 ms by default, 0 to close ledgers only on demand. */
  ledgerIntervalMs?: number;
  /** Other sandbox options (`maxSorobanTransactions`). */
  sandbox?: Pick<SandboxOptions, 'maxSorobanTransactions'>;
  /** The Redis the apps share (`REDIS_URL` of the environment, or the local one, by default)... */
  redisUrl?: string;
  /** ...and a database of its own in it (proposals and queues under fixed keys must not meet another stack's). */
  redisDb?: number;
  /** Database apps whose processes share one SQLite file in the stack's folder (a restart keeps it). */
  files?: readonly AppName[];
  /** Node flags per app (`--cpu-prof`). */
  nodeArgs?: Partial<Record<AppName, readonly string[]>>;
  adminKey?: string;
}

/** A wallet of its own (a fresh mnemonic: an agent derives m/44'/148'/0' from it). */
export interface StackWallet {
  mnemonic: string;
  wallet: LedgerWallet;
  address: string;
}

export interface StartOptions {
  env?: Settings;
  role?: string;
  nodeArgs?: readonly string[];
}

export interface Stack {
  sandbox: RunningSandbox;
  /** The sandbox's scenario (throws on the empty one). */
  readonly scenario: LoadedScenario;
  /** The first process of `app` (the one the others are pointed at); throws when the stack runs none. */
  app(app: AppName): AppProcess;
  /** Every running process of `app`, in the order they started. */
  processes(app: AppName): AppProcess[];
  /** The gateway's API: calls with a key, partner keys from the admin route. */
  api: StackApi;
  adminKey: string;
  internalToken: string;
  redisUrl: string;
  /** The notifications apps' key prefix in Redis (`NOTIFICATIONS_KEY_PREFIX`); its keys are removed on close. */
  keyPrefix: string;
  /** The sandbox's RPC, as the apps read it. */
  ledger: LedgerRpc;
  /** Balances in base units (7 decimals) of the demo scenario's USDC and XLM. */
  usdc(owner: string): bigint;
  xlm(owner: string): bigint;
  /** The settings a new process of `app` gets (wiring, stack settings, `env`). */
  settingsOf(app: AppName, options?: StartOptions): Record<string, string | undefined>;
  /** Starts one more process of `app` (an agent per test, another worker) and waits until it is ready. */
  start(app: AppName, options?: StartOptions): Promise<AppProcess>;
  /** Stops the process and starts it again on the same port with the same settings. */
  restart(process: AppProcess): Promise<AppProcess>;
  /** SIGKILLs the process, runs `whileDown`, and starts it again on the same port with the same settings. */
  crash(process: AppProcess, whileDown?: () => Promise<void>): Promise<AppProcess>;
  /** A fresh wallet with 100 XLM for fees and a position in the demo pool (XLM collateral, USDC debt). */
  borrower(position: BorrowerPosition, label?: string): StackWallet;
  /** A fresh wallet funded with `xlm` (10 by default) and `usdc` base units of USDC. */
  wallet(funds: { usdc?: bigint; xlm?: bigint }, label?: string): StackWallet;
  /** The wallet's position in the demo pool as the ledger has it now: reserves held, health factor (7 decimals). */
  position(wallet: string): Promise<{ collateral: number; liabilities: number; healthFactor: bigint | null }>;
  /** Signs a built transaction (XDR) with the wallet's own key: the wallet's side of a txb flow. */
  sign(signer: LedgerWallet | StackWallet, transactionXdr: string): string;
  /** A SQLite file in the stack's folder, new per call (removed on close). */
  databaseUrl(name: string): string;
  close(): Promise<void>;
}

let wallets = 0;

/**
 * The sandbox in this process and `apps` as real processes on free ports, wired by APP_WIRING; for the e2e suites
 * and the benchmarks. Close it in `afterAll` (or `finally`).
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const sandbox = await startSandbox({
    port: 0,
    tlsPort: 0,
    smtpPort: 0,
    ledgerIntervalMs: options.ledgerIntervalMs ?? 250,
    scenario: options.scenario ?? 'demo',
    ...options.sandbox,
  });
  trustSandboxCertificate(sandbox.tlsCertificate);
  const adminKey = options.adminKey ?? STACK_ADMIN_KEY;
  const internalToken = randomBytes(24).toString('hex');
  const redisUrl = withDatabase(
    options.redisUrl ?? process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    options.redisDb,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'rp-stack-'));
  const keyPrefix = `stack${randomBytes(4).toString('hex')}`;
  const running = new Map<AppName, AppProcess[]>();
  const scenario = sandbox.scenario;
  const context = (): WiringContext => ({
    running: Object.fromEntries(
      [...running].filter(([, all]) => all.length > 0).map(([app, all]) => [app, all[0].url]),
    ),
    sandbox: {
      url: sandbox.url,
      secureUrl: new URL(sandbox.secureRpcUrl).origin,
      smtpPort: sandbox.smtpPort,
      scenario: scenario && { ...scenario, sponsorSecret: scenario.sponsor.secret },
    },
    adminKey,
  });
  let databases = 0;
  const databaseUrl = (name: string) => {
    databases += 1;
    return `sqlite://${join(dataDir, `${name}-${databases}.sqlite`)}`;
  };
  const files = Object.fromEntries((options.files ?? []).map((app) => [app, databaseUrl(app)]));
  const settingsOf = (app: AppName, { env, role }: StartOptions = {}) => {
    const wiring = APP_WIRING[app];
    const wired = wiredSettings(app, context());
    const given = (settings: StackEnv[AppName] | undefined) =>
      typeof settings === 'function' ? settings(wired) : settings;
    return {
      HOST: '127.0.0.1',
      NODE_ENV: 'test',
      REDIS_URL: redisUrl,
      INTERNAL_TOKEN: internalToken,
      ...(wiring.database && { DATABASE_URL: files[app] ?? 'sqlite://memory' }),
      ...(app === 'notifications' && { NOTIFICATIONS_KEY_PREFIX: keyPrefix }),
      ...wired,
      ...(role && wiring.roleVariable && { [wiring.roleVariable]: role }),
      ...given(options.env?.all),
      ...given(options.env?.[app]),
      ...env,
    };
  };
  const replace = (old: AppProcess, next: AppProcess) => {
    const all = running.get(old.app as AppName) ?? [];
    all[all.indexOf(old)] = next;
  };
  const start = async (app: AppName, startOptions: StartOptions = {}) => {
    const process = new AppProcess({
      app,
      port: await freePort(),
      env: settingsOf(app, startOptions),
      nodeArgs: [...(options.nodeArgs?.[app] ?? []), ...(startOptions.nodeArgs ?? [])],
    });
    running.set(app, [...(running.get(app) ?? []), process]);
    return whenReady(process);
  };
  const close = async () => {
    const all = [...running.values()].flat().reverse();
    for (const process of all) await process.stop();
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
    await removeKeys(redisUrl, keyPrefix);
  };
  const fresh = (): StackWallet => {
    wallets += 1;
    const mnemonic = generateMnemonic(wordlist);
    const wallet = LedgerWallet.fromMnemonic(mnemonic);
    return { mnemonic, wallet, address: wallet.address };
  };
  try {
    for (const app of START_ORDER.filter((name) => options.apps.includes(name))) {
      for (const role of options.roles?.[app] ?? [undefined]) await start(app, { role });
    }
  } catch (error) {
    await close();
    throw error;
  }
  const processes = (app: AppName) => [...(running.get(app) ?? [])];
  const demo = () => {
    if (!scenario) throw new Error('the stack runs the empty scenario');
    return scenario;
  };
  const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
  const reader = new BlendPoolReader({ ledger, simulator: ledger, networkPassphrase: Networks.TESTNET });
  return {
    sandbox,
    get scenario() {
      return demo();
    },
    app(app) {
      const [first] = processes(app);
      if (!first) throw new Error(`${app} is not part of this stack`);
      return first;
    },
    processes,
    api: stackApi(`${running.get('gateway')?.[0]?.url ?? UNSTARTED}/api/v1`, adminKey),
    adminKey,
    internalToken,
    redisUrl,
    keyPrefix,
    ledger,
    usdc: (owner) => sandbox.control.setup.balance(demo().usdc, owner),
    xlm: (owner) => sandbox.control.setup.balance(demo().xlm, owner),
    settingsOf,
    start,
    async restart(process) {
      await process.stop();
      const next = process.respawn();
      replace(process, next);
      return whenReady(next);
    },
    async crash(process, whileDown) {
      await process.kill();
      await whileDown?.();
      const next = process.respawn();
      replace(process, next);
      return whenReady(next);
    },
    borrower(position, label = 'stack borrower') {
      const borrower = fresh();
      openBorrower(sandbox, borrower.address, `${label} ${wallets}`, position);
      return borrower;
    },
    wallet({ usdc = 0n, xlm = 10n }, label = 'stack wallet') {
      const funded = fresh();
      sandbox.control.setup.fund(funded.address, xlm * UNIT, `${label} ${wallets}`);
      if (usdc > 0n) sandbox.control.setup.mint(demo().usdc, funded.address, usdc);
      return funded;
    },
    async position(wallet) {
      const pool = await reader.loadPool(demo().pool);
      const [prices, positions] = await Promise.all([
        reader.loadPrices(pool),
        reader.loadPositions(demo().pool, [wallet]),
      ]);
      const held = positions.get(wallet) ?? { collateral: new Map(), liabilities: new Map(), supply: new Map() };
      const summary = summarizePositions(pool.reserves, prices, held);
      return {
        collateral: held.collateral.size,
        liabilities: held.liabilities.size,
        healthFactor: summary.healthFactor,
      };
    },
    sign(signer, transactionXdr) {
      const tx = TransactionBuilder.fromXDR(transactionXdr, Networks.TESTNET);
      ('wallet' in signer ? signer.wallet : signer).signTransaction(tx);
      return tx.toXDR();
    },
    databaseUrl,
    close,
  };
}

/** Waits until the process is ready; if it is not, stops it and throws with its last 20 lines of output. */
export async function whenReady(process: AppProcess, timeoutMs = 60_000): Promise<AppProcess> {
  try {
    await process.waitReady(timeoutMs);
  } catch (error) {
    await process.stop();
    throw new Error(`${(error as Error).message}\n${process.lines.slice(-20).join('\n')}`);
  }
  return process;
}

/** Where the API of a stack without a gateway points (nothing answers). */
const UNSTARTED = 'http://127.0.0.1:1';

/** `url` with database `db` (the path of a redis:// URL), or as it is. */
export function withDatabase(url: string, db: number | undefined): string {
  if (db === undefined) return url;
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}
