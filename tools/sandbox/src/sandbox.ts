import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ChannelStandIns } from './channels';
import { ControlApi } from './control/control-api';
import { SandboxLedger } from './ledger/sandbox-ledger';
import { servePageAsset } from './page/page-assets';
import { renderPage } from './page/sandbox-page';
import { FaultInjector } from './rpc/faults';
import { RpcEndpoint } from './rpc/rpc-endpoint';
import { SorobanRpc } from './rpc/soroban-rpc';
import type { LoadedScenario, ScenarioName } from './scenario';
import { BadRequestError, sendJson, sendText } from './server/http-io';

export interface SandboxOptions {
  readonly host?: string;
  /** The `/status` of an agent to show on the page (`npm start`'s demo agent), relayed at `/agent/status`. */
  readonly agentStatusUrl?: string;
  /** Page, control API, RPC, Telegram and webhooks over HTTP. Default 4000; 0 picks a free port. */
  readonly port?: number;
  /** The same routes over HTTPS with the loopback certificate (clients that refuse plain-HTTP RPC). Default 4443. */
  readonly tlsPort?: number;
  /** SMTP sink. Default 2525. */
  readonly smtpPort?: number;
  /** Ledger close interval; 0 closes ledgers only on demand. Default 5000. */
  readonly ledgerIntervalMs?: number;
  readonly scenario?: ScenarioName;
  /** Soroban transactions one ledger holds before surge pricing picks by fee (`SANDBOX_LEDGER_MAX_SOROBAN_TX`). */
  readonly maxSorobanTransactions?: number;
}

export interface RunningSandbox {
  readonly url: string;
  readonly rpcUrl: string;
  /** The RPC over HTTPS; trust `tlsCertificate` (see `trustSandboxCertificate`). */
  readonly secureRpcUrl: string;
  readonly smtpPort: number;
  readonly tlsCertificate: string;
  readonly ledger: SandboxLedger;
  readonly channels: ChannelStandIns;
  readonly faults: FaultInjector;
  readonly scenario: LoadedScenario | undefined;
  readonly control: ControlApi;
  close(): Promise<void>;
}

/** The loopback certificate: `tools/sandbox/tls`, found from here whether this runs from source or from dist/dev. */
const TLS_DIR = (() => {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'tools/sandbox/tls');
    if (existsSync(path.join(candidate, 'loopback.crt'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`tools/sandbox/tls not found above ${__dirname}`);
  }
})();

/** Starts every stand-in on loopback and, unless told otherwise, loads the demo scenario. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const interval = options.ledgerIntervalMs ?? 5000;
  // A ledger that closes on its own gets a past at its pace (x402 clients measure it); a manual one does not.
  const ledger = new SandboxLedger({
    historyIntervalSeconds: interval > 0 ? interval / 1000 : 0,
    maxSorobanTransactions: options.maxSorobanTransactions,
  });
  const faults = new FaultInjector();
  const channels = new ChannelStandIns();
  const tls = {
    key: readFileSync(path.join(TLS_DIR, 'loopback.key')),
    cert: readFileSync(path.join(TLS_DIR, 'loopback.crt')),
  };

  let url = '';
  const rpc = new SorobanRpc(ledger, () => `${url}/friendbot`);
  const endpoint = new RpcEndpoint(rpc, faults);
  const control = new ControlApi(ledger, faults, channels, endpoint);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((error: unknown) => {
      const status = error instanceof BadRequestError ? error.status : 500;
      if (!res.headersSent) sendJson(res, status, { error: (error as Error).message });
      else res.destroy();
    });
  };
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = new URL(req.url ?? '/', 'http://sandbox').pathname;
    if (pathname === '/rpc') return endpoint.handle(req, res);
    if (pathname === '/health/ready' || pathname === '/health/live') return sendJson(res, 200, { status: 'ok' });
    if (pathname.startsWith('/telegram/'))
      return channels.telegram.handle(req, res, pathname.slice('/telegram'.length));
    if (pathname.startsWith('/hooks/')) return channels.webhooks.handle(req, res, pathname.slice('/hooks/'.length));
    if (pathname === '/agent/status' && req.method === 'GET') return relayAgentStatus(res, options.agentStatusUrl);
    if (pathname === '/' && req.method === 'GET') {
      return sendText(res, 200, 'text/html; charset=utf-8', renderPage(control.dump()));
    }
    if (req.method === 'GET' && (await servePageAsset(res, pathname))) return;
    if (await control.handle(req, res, pathname)) return;
    sendJson(res, 404, { error: `no route for ${req.method} ${pathname}` });
  };

  const http = createServer(handler);
  const https = createTlsServer(tls, handler);
  const port = await listen(http, options.port ?? 4000, host);
  const tlsPort = await listen(https, options.tlsPort ?? 4443, host);
  url = `http://${host}:${port}`;
  const smtpPort = await channels.smtp.start(options.smtpPort ?? 2525, host);

  const scenario = control.load(options.scenario ?? 'demo');
  const timer = interval > 0 ? setInterval(() => ledger.closeLedger(), interval) : undefined;
  timer?.unref();

  return {
    url,
    rpcUrl: `${url}/rpc`,
    secureRpcUrl: `https://${host}:${tlsPort}/rpc`,
    smtpPort,
    tlsCertificate: tls.cert.toString('utf8'),
    ledger,
    channels,
    faults,
    scenario,
    control,
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all([close(http), close(https), channels.smtp.stop()]);
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The page cannot call the agent itself (another origin): the sandbox relays its `/status`. */
async function relayAgentStatus(res: ServerResponse, url: string | undefined): Promise<void> {
  if (!url) return sendJson(res, 404, { error: 'no agent is shown here (SANDBOX_AGENT_URL is not set)' });
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return sendJson(res, answer.status, await answer.json());
  } catch (error) {
    return sendJson(res, 502, { error: `the agent did not answer: ${(error as Error).message}` });
  }
}
