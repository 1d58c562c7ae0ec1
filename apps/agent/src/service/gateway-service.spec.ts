import type { RiskResponse } from '@rp/contracts';
import pino from 'pino';
import type { CloseBuilder } from '../close/close-builder';
import type { AgentConfig } from '../config/agent.config';
import { LedgerService } from '../ledger/ledger-service';
import type { LedgerView } from '../ledger/ledger-view';
import type { Subscription } from '../subscription/subscription';
import { GatewayService } from './gateway-service';
import { type ServiceClient, ServiceRefusedError, ServiceUnavailableError } from './service-client';

const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const POOL = 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA';

/** The risk route's answer as notifications gives it (docs: the agent codes against this shape). */
const ANSWER: RiskResponse = {
  success: true,
  walletAddress: WALLET,
  positions: [
    {
      address: WALLET,
      poolAddress: POOL,
      riskLevel: 'high',
      healthFactor: 1.12,
      triggers: ['low_health_factor'],
      collateralValueUsd: 3000,
      liabilityValueUsd: 1900,
      recommendedAction: 'REPAY',
      evaluatedAt: '2026-11-22T12:00:00.000Z',
      liquidationPrices: { CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC: '0.2666667' },
      healthFactorIf: { '-5': 1.064, '-10': 1.008, '-20': 0.896, '-30': 0.784 },
      liquidationBuffer: 11.11111,
    },
  ],
  levels: { medium: 1.5, high: 1.25, critical: 1.1 },
  evaluatedAt: '2026-11-22T12:00:00.000Z',
  timestamp: '2026-11-22T12:00:00.000Z',
};

describe('where the agent reads its risk', () => {
  const logger = pino({ level: 'silent' });
  const ledgerPools: string[][] = [];
  const ledger = {
    positions: async (pools: string[]) => {
      ledgerPools.push(pools);
      return [];
    },
  } as unknown as LedgerView;
  const withKey = { apiKey: () => 'rp_test_key', keyRejected: async () => undefined } as unknown as Subscription;
  const withoutKey = { apiKey: () => undefined } as unknown as Subscription;
  const builder = {} as CloseBuilder;
  /** The gateway-backed service with the ledger-backed one behind it (what the agent runs outside mock mode). */
  const serviceOf = (watched: string[], client: ServiceClient, subscription: Subscription) =>
    new GatewayService(
      {} as AgentConfig,
      WALLET,
      client,
      subscription,
      new LedgerService(watched, ledger, builder, 0, logger),
      builder,
      logger,
    );

  beforeEach(() => (ledgerPools.length = 0));

  it('service mode: the route answer becomes the positions, and its pools are remembered', async () => {
    let up = true;
    const service = {
      risk: async () => {
        if (!up) throw new ServiceUnavailableError('down');
        return ANSWER;
      },
    } as unknown as ServiceClient;
    const reader = serviceOf([], service, withKey);
    const reading = await reader.read();
    expect(reading.mode).toBe('service');
    expect(reading.positions).toEqual([
      { poolAddress: POOL, healthFactor: 1.12, riskLevel: 'high', collateralValueUsd: 3000, liabilityValueUsd: 1900 },
    ]);
    up = false;
    expect((await reader.read()).mode).toBe('degraded');
    expect(ledgerPools).toEqual([[POOL]]);
  });

  it('degraded without a key: the watched pools straight from the ledger, the service not asked', async () => {
    const service = {
      risk: async () => {
        throw new Error('must not be called');
      },
    } as unknown as ServiceClient;
    const reader = serviceOf([POOL], service, withoutKey);
    expect((await reader.read()).mode).toBe('degraded');
    expect(ledgerPools).toEqual([[POOL]]);
  });
});

describe("the agent's builds through txb", () => {
  const logger = pino({ level: 'silent' });
  const config = { CLOSE_STRATEGY: 'deleverage', TARGET_HEALTH_FACTOR: 1.5, SLIPPAGE: 100 } as AgentConfig;
  const builder = { priced: async (built: unknown) => built } as unknown as CloseBuilder;
  const withKey = { apiKey: () => 'rp_test_key' } as unknown as Subscription;

  /** txb refusing every build that names a target health factor with `code`, building the others. */
  function txb(code: string) {
    const asked: Record<string, unknown>[] = [];
    const client = {
      build: async (_key: string, body: Record<string, unknown>) => {
        asked.push(body);
        if (body['targetHealthFactor'] !== undefined) throw new ServiceRefusedError(422, code, 'refused', {});
        return { transaction: { transactionXdr: 'AAAA' }, proposal: { id: 'p1', metadata: { route: 'flash-loan' } } };
      },
    } as unknown as ServiceClient;
    const service = new GatewayService(config, WALLET, client, withKey, {} as LedgerService, builder, logger);
    return { service, asked };
  }

  it('deleverage: a partial close txb cannot build (UNWIND_NOT_POSSIBLE) is asked again as a whole close', async () => {
    const { service, asked } = txb('UNWIND_NOT_POSSIBLE');
    expect(await service.build(POOL)).toMatchObject({ builtBy: 'service', proposalId: 'p1' });
    expect(asked.map((body) => body['targetHealthFactor'])).toEqual([1.5, undefined]);
  });

  it('any other refusal stands, and a rescue is never turned into a close', async () => {
    const refused = txb('TARGET_ALREADY_REACHED');
    await expect(refused.service.build(POOL)).rejects.toMatchObject({ code: 'TARGET_ALREADY_REACHED' });
    expect(refused.asked).toHaveLength(1);
    const rescue = txb('UNWIND_NOT_POSSIBLE');
    await expect(rescue.service.build(POOL, { rescue: true })).rejects.toMatchObject({ code: 'UNWIND_NOT_POSSIBLE' });
    expect(rescue.asked).toEqual([expect.objectContaining({ action: 'RESCUE' })]);
  });
});
