import { once } from 'node:events';
import { LedgerWallet } from '@rp/ledger';
import type { RedisClient } from '@rp/platform-core';
import type { Logger } from 'pino';
import { CloseBuilder } from './close/close-builder';
import { CloseSender } from './close/close-sender';
import { Closer } from './close/closer';
import { PresignedCache } from './close/presigned-cache';
import { SigningGuard } from './close/signing-guard';
import { SigningRefusals } from './close/signing-refusals';
import type { AgentConfig } from './config/agent.config';
import { DatabaseLeases, type Leases, RedisLeases } from './coordination/leases';
import { createStatusServer } from './http/status-server';
import { LedgerView } from './ledger/ledger-view';
import { Agent } from './loop/agent';
import { RiskReader } from './loop/risk-reader';
import { AgentMetrics } from './metrics/agent-metrics';
import { MockService } from './mock/mock-service';
import { CloseReport } from './owner/close-report';
import { createOwnerEvents } from './owner/owner-runtime';
import { ServiceClient } from './service/service-client';
import { statusOf } from './status/status-view';
import { openAgentStore } from './store/agent-store';
import { SubscriptionKeeper } from './subscription/subscription-keeper';

export interface AgentRuntime {
  readonly agent: Agent;
  stop(): Promise<void>;
}

/** Wires the agent from its settings, starts its HTTP surface on HOST:PORT and its loop. */
export async function startAgent(config: AgentConfig, logger: Logger, redis: RedisClient | undefined): Promise<AgentRuntime> {
  const wallet = LedgerWallet.fromMnemonic(config.LEDGER_MNEMONIC);
  const store = await openAgentStore(config.databaseUrl());
  const leases: Leases = redis ? new RedisLeases(redis) : new DatabaseLeases(store.leases);
  const mock = config.SERVICE_MOCK ? new MockService(wallet.address) : undefined;
  const ledger = new LedgerView(config.CONTRACT_RPC_URL, wallet.address, config.UNWIND_RECEIVER);
  const service = new ServiceClient(config.SERVICE_BASE_URL);
  const metrics = new AgentMetrics();
  const presigned = new PresignedCache();
  // The owner's events (issue 17): `owner.events.emit(...)` is the one interface the acting code needs.
  const owner = createOwnerEvents(config, wallet.address, store, logger, metrics);
  const subscription = new SubscriptionKeeper(config, wallet, store, ledger, logger, { mock, metrics, owner: owner.events });
  const builder = new CloseBuilder(config, wallet.address, ledger, service, subscription, mock);
  const sender = new CloseSender(ledger, service, Math.min(1000, Math.max(250, config.POLL_INTERVAL_MS / 4)), (error) =>
    logger.warn({ err: error.message }, 'txb did not take the close for tracking (it is on the network already)'),
  );
  const passphrase = mock ? async () => 'Test SDF Network ; September 2015' : () => ledger.passphrase();
  // Every refusal of the signing rule is recorded here: `refusals.onRefusal(...)` is where the owner's events attach.
  const refusals = new SigningRefusals(logger, metrics);
  const guard = new SigningGuard(config, wallet.address, ledger, refusals);
  const report = new CloseReport(owner.events, ledger, logger, config.CLOSE_COOLDOWN_TTL * 1000);
  refusals.onRefusal((refusal) => void report.refused(refusal));
  const closer = new Closer(config, wallet, store, leases, presigned, builder, sender, subscription, metrics, logger, passphrase, mock, guard, report);
  const reader = new RiskReader(wallet.address, config.WATCHED_POOLS, ledger, service, subscription, mock, logger);
  const agent = new Agent(config, wallet, ledger, reader, subscription, presigned, closer, leases, metrics, logger, mock, owner.events);

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
      status: () => statusOf(agent, subscription, presigned, store, wallet.address, refusals),
      metrics: () => metrics.render(),
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
    { wallet: wallet.address, database: store.description, lock: leases.kind, mode: mock ? 'mock' : 'service' },
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
