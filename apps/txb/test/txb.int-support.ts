import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { CallerIdentity, ProposalStatus, ProposalView } from '@rp/contracts';
import { LedgerRpc, LedgerWallet, networkPassphrase } from '@rp/ledger';
import { createApp, initApp, loadConfig, signInternalRequest } from '@rp/platform';
import { DEMO_WALLETS, type LoadedScenario, type RunningSandbox, UNIT, startSandbox } from '@rp/sandbox';
import request from 'supertest';
import { TxbConfig } from '../src/config/txb.config';
import { txbApp } from '../src/txb.app';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * The test Redis with a database of the suite's own: trackers of suites running side by side (and their sandboxes)
 * must not pick up each other's proposals.
 */
export function redisDatabase(db: number): string {
  const url = new URL(REDIS_URL);
  url.pathname = `/${db}`;
  return url.toString();
}
const TOKEN = 'internal-token-for-txb-integration-tests';
const TESTNET = networkPassphrase('ledger:testnet');
let strangers = 0;

export interface TxbHarness {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  app: NestFastifyApplication;
  rpc: LedgerRpc;
  /** A caller identity as the gateway would vouch for it: a fresh key, of a fresh account unless one is given. */
  caller(account?: string): CallerIdentity;
  call(
    method: 'GET' | 'POST',
    path: string,
    caller: CallerIdentity | undefined,
    body?: unknown,
  ): Promise<request.Response>;
  /** A new SEP-5 wallet with `xlm` of XLM collateral and `usdc` of USDC debt in the demo pool (base units). */
  borrower(options: { xlm: bigint; usdc: bigint; keepUsdc?: bigint; extraUsdc?: bigint }): LedgerWallet;
  /** A wallet nobody has used: no account, no position, a key of its own. */
  stranger(): LedgerWallet;
  /** Signs a built transaction with the wallet's own key. */
  sign(wallet: LedgerWallet, transactionXdr: string): string;
  /**
   * The proposal once it has one of `statuses`, closing a ledger each round (the tracker answers to ledgers, not to
   * time). Gives up after `rounds` rounds of 100 ms: a safety bound, not a timing assertion.
   */
  proposalIn(
    caller: CallerIdentity,
    wallet: string,
    id: string,
    statuses: readonly ProposalStatus[],
    rounds?: number,
  ): Promise<ProposalView>;
  /** Builds, signs and submits; resolves with the build answer and the submit answer. */
  buildAndSubmit(
    caller: CallerIdentity,
    wallet: LedgerWallet,
    body: object,
  ): Promise<{ built: request.Response; submitted: request.Response }>;
  close(): Promise<void>;
}

let wallets = 0;

export interface HarnessOptions {
  /** The suite's own Redis database (see `redisDatabase`). */
  redisDb: number;
  env?: Record<string, string>;
  /** Ledger close interval; 0 (the default) closes ledgers only when the test does. */
  ledgerIntervalMs?: number;
}

/** The sandbox ledger and txb in this process, on the test Redis, signed like the gateway signs. */
export async function startTxbHarness(options: HarnessOptions): Promise<TxbHarness> {
  const sandbox = await startSandbox({
    port: 0,
    tlsPort: 0,
    smtpPort: 0,
    ledgerIntervalMs: options.ledgerIntervalMs ?? 0,
  });
  const scenario = sandbox.scenario as LoadedScenario;
  const env = options.env ?? {};
  const config = loadConfig(TxbConfig, {
    REDIS_URL: redisDatabase(options.redisDb),
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    TXB_UNWIND_RECEIVER: scenario.swapReceiver,
    INTERNAL_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await createApp(txbApp, config);
  await initApp(app);
  const rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
  const setup = sandbox.control.setup;
  const harness: TxbHarness = {
    sandbox,
    scenario,
    app,
    rpc,
    caller: (account) => {
      const keyId = randomUUID();
      return {
        keyId,
        tier: 'partner',
        rateLimit: 1000,
        burst: 1000,
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        email: null,
        account: account ?? `partner:key-${keyId}`,
      };
    },
    call(method, path, caller, body) {
      const requestId = randomUUID();
      // The signature covers the exact bytes sent: the JSON text supertest would have made of `body`.
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers = {
        ...signInternalRequest({ token: TOKEN, method, path, requestId, identity: caller, body: text }),
        'x-request-id': requestId,
      };
      const call = method === 'GET' ? request(app.getHttpServer()).get(path) : request(app.getHttpServer()).post(path);
      return text === undefined
        ? call.set(headers)
        : call.set({ ...headers, 'content-type': 'application/json' }).send(text);
    },
    borrower({ xlm, usdc, keepUsdc, extraUsdc }) {
      wallets += 1;
      const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 500 + wallets });
      setup.fund(wallet.address, 100n * UNIT, `txb test wallet ${wallets}`);
      setup.openPosition(scenario.pool, {
        user: wallet.address,
        supplyCollateral: [{ asset: scenario.xlm, amount: xlm }],
        ...(usdc > 0n && { borrow: [{ asset: scenario.usdc, amount: usdc }] }),
      });
      // The borrowed USDC went to the wallet; keep only what the test wants it to hold.
      const held = setup.balance(scenario.usdc, wallet.address);
      const keep = keepUsdc ?? held;
      if (held > keep) {
        setup.transfer(scenario.usdc, wallet.address, scenario.paymentReceiver, held - keep);
      }
      if (extraUsdc) setup.mint(scenario.usdc, wallet.address, extraUsdc);
      return wallet;
    },
    sign(wallet, transactionXdr) {
      return wallet.signTransactionXdr(transactionXdr, TESTNET);
    },
    stranger() {
      strangers += 1;
      return LedgerWallet.fromMnemonic(DEMO_WALLETS.endangered.mnemonic, { index: 900 + strangers });
    },
    async proposalIn(caller, wallet, id, statuses, rounds = 300) {
      for (let round = 0; round < rounds; round += 1) {
        const listed = await harness.call('GET', `/api/v1/txb/proposals?wallet=${wallet}`, caller);
        const found = (listed.body.proposals as ProposalView[] | undefined)?.find((proposal) => proposal.id === id);
        if (found && statuses.includes(found.status)) return found;
        sandbox.ledger.closeLedger();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`proposal ${id} did not reach ${statuses.join('/')} in ${rounds} rounds`);
    },
    async buildAndSubmit(caller, wallet, body) {
      const built = await harness.call('POST', '/api/v1/txb/build', caller, { walletAddress: wallet.address, ...body });
      if (built.status !== 200) throw new Error(`build answered ${built.status}: ${JSON.stringify(built.body)}`);
      const signed = harness.sign(wallet, built.body.transaction.transactionXdr);
      const submitted = await harness.call('POST', '/api/v1/txb/submit', caller, { transactionXdr: signed });
      return { built, submitted };
    },
    async close() {
      await app.close();
      await sandbox.close();
    },
  };
  return harness;
}
