import { once } from 'node:events';
import { LedgerWallet, endpointGaugeText } from '@rp/ledger';
import type { RedisClient } from '@rp/platform-core';
import type { Logger } from 'pino';
import { CloseAudit } from './close/close-audit';
import { CloseBuilder } from './close/close-builder';
import { CloseChoice } from './close/close-choice';
import { RescueTarget } from './close/rescue-target';
import { CloseSender } from './close/close-sender';
import { Closer } from './close/closer';
import { PresignedCache } from './close/presigned-cache';
import { SentCloses } from './close/sent-closes';
import { SigningGuard } from './close/signing-guard';
import { SigningRefusals } from './close/signing-refusals';
import type { AgentModeParts, AgentParts } from './agent-parts';
import type { AgentConfig } from './config/agent.config';
import { DatabaseLeases, type Leases, RedisLeases } from './coordination/leases';
import { createStatusServer } from './http/status-server';
import { LedgerService } from './ledger/ledger-service';
import { LedgerView } from './ledger/ledger-view';
import { Agent } from './loop/agent';
import { AgentMetrics } from './metrics/agent-metrics';
import { playedMode } from './mock/played-mode';
import { CloseReport } from './owner/close-report';
import { createOwnerEvents } from './owner/owner-runtime';
import { GatewayService } from './service/gateway-service';
import { ServiceClient } from './service/service-client';
import { statusOf } from './status/status-view';
import { openAgentStore } from './store/agent-store';
import { SubscriptionKeeper } from './subscription/subscription-keeper';

export interface AgentRuntime {
  readonly agent: Agent;
  stop(): Promise<void>;
}

/**
 * The service through the gateway with the agent's own key (bought and kept by `SubscriptionKeeper`), the ledger
 * answering while it cannot (degraded), and closes sent to the network under the signing rule.
 */
function servedMode(parts: AgentParts, ledger: LedgerView): AgentModeParts {
  const { config, wallet, logger, metrics } = parts;
  const client = new ServiceClient(config.SERVICE_BASE_URL);
  const subscription = new SubscriptionKeeper(config, wallet, parts.store, ledger, logger, { metrics, owner: parts.owner });
  const rescueTarget = new RescueTarget();
  const builder = new CloseBuilder(config, ledger, rescueTarget);
  const degraded = new LedgerService(config.WATCHED_POOLS, ledger, builder, config.MAX_CLOSE_FEE_STROOPS, logger);
  const service = new GatewayService(config, wallet.address, client, subscription, degraded, builder, logger, rescueTarget);
  const sender = new CloseSender(ledger, client, Math.min(1000, Math.max(250, config.POLL_INTERVAL_MS / 4)), (error) =>
    logger.warn({ err: error.message }, 'txb did not take the close for tracking (it is on the network already)'),
  );
  const guard = new SigningGuard(config, wallet.address, ledger, parts.refusals, rescueTarget);
  const passphrase = () => ledger.passphrase();
  const choice = new CloseChoice(wallet, config.SLIPPAGE, service, builder, guard, parts.presigned, sender, subscription, passphrase, logger);
  const closes = new SentCloses(choice, parts.audit, sender, parts.presigned, subscription, parts.report, metrics, logger);
  return { service, subscription, closes };
}

/** Wires the agent from its settings, starts its HTTP surface on HOST:PORT and its loop. */
export async function startAgent(config: AgentConfig, logger: Logger, redis: RedisClient | undefined): Promise<AgentRuntime> {
  const wallet = LedgerWallet.fromMnemonic(config.LEDGER_MNEMONIC);
  const store = await openAgentStore(config.databaseUrl());
  const leases: Leases = redis ? new RedisLeases(redis) : new DatabaseLeases(store.leases);
  const ledger = new LedgerView(config.CONTRACT_RPC_URL, wallet.address, config.UNWIND_RECEIVER);
  const metrics = new AgentMetrics();
  const presigned = new PresignedCache();
  // The owner's events (issue 17): `owner.events.emit(...)` is the one interface the acting code needs.
  const owner = createOwnerEvents(config, wallet.address, store, logger, metrics);
  // Every refusal of the signing rule is recorded here: `refusals.onRefusal(...)` is where the owner's events attach.
  const refusals = new SigningRefusals(logger, metrics);
  const report = new CloseReport(owner.events, ledger, logger, config.CLOSE_COOLDOWN_TTL * 1000);
  refusals.onRefusal((refusal) => void report.refused(refusal));
  const audit = new CloseAudit(store, wallet.address, metrics);
  const parts: AgentParts = { config, wallet, store, logger, metrics, presigned, audit, owner: owner.events, refusals, report };
  // The mode is chosen here, once: nothing past this line asks which one it is.
  const { service, subscription, closes } = config.SERVICE_MOCK ? playedMode(parts) : servedMode(parts, ledger);
  const closer = new Closer(config, wallet.address, leases, audit, closes, report, logger);
  const agent = new Agent(config, wallet, service, subscription, presigned, closer, leases, metrics, logger, owner.events);

  const server = createStatusServer(
    {
      health: () => ({ status: 'ok' }),
      ready: async () => {
        try {
          await store.ping();
          if (redis) await redis.ping();
          return { ok: true, body: { status: 'ok', role: agent.state.role } };
        } catch (error) {
          return { ok: false, body: { status: 'error', error: (error as Error).message } };
        }
      },
      status: () => statusOf(agent, subscription, presigned, store, wallet.address, refusals, ledger),
      metrics: () => metrics.render() + endpointGaugeText(ledger.rpc.endpoints()),
      observe: (method, route, status, seconds) => metrics.request(method, route, status, seconds),
    },
    config.STATUS_TOKEN,
  );
  server.listen(config.PORT, config.HOST);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => {
      throw new Error(`cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`);
    }),
  ]);
  logger.info(
    { wallet: wallet.address, database: store.description, lock: leases.kind, mode: service.mode },
    'agent starting',
  );
  agent.start();
  owner.start(subscription);
  return {
    agent,
    async stop() {
      await agent.stop();
      await owner.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store.close();
      await redis?.quit().catch(() => undefined);
    },
  };
}
