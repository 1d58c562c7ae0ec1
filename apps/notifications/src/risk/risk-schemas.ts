import type { SchemaObject } from '@nestjs/swagger';
import {
  ALERT_TRIGGERS,
  PRICE_DROP_SCENARIOS,
  type PriceDropScenario,
  RECOMMENDED_ACTIONS,
  RISK_LEVELS,
} from '@rp/contracts';

/** Answer schemas of the risk route and the admin trigger (requests come from the DTOs of `@rp/contracts`). */

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };

/** A position at health factor 1.1354166 whose collateral is liquidated 11.92659 % down. */
const HF_IF_EXAMPLE: Record<PriceDropScenario, number> = {
  '-5': 1.0786458,
  '-10': 1.0218749,
  '-20': 0.9083333,
  '-30': 0.7947916,
};

export const RISK_POSITION_SCHEMA: SchemaObject = {
  type: 'object',
  required: [
    'address',
    'poolAddress',
    'riskLevel',
    'healthFactor',
    'triggers',
    'collateralValueUsd',
    'liabilityValueUsd',
    'recommendedAction',
    'evaluatedAt',
    'liquidationPrices',
    'healthFactorIf',
    'liquidationBuffer',
  ],
  properties: {
    address: { type: 'string', description: 'The wallet (G-address).' },
    poolAddress: { type: 'string', description: 'The Blend pool (C-address).' },
    riskLevel: { type: 'string', enum: [...RISK_LEVELS] },
    healthFactor: {
      type: 'number',
      nullable: true,
      example: 1.0812345,
      description: "Blend v2's health factor (7 decimals); null without debt.",
    },
    triggers: {
      type: 'array',
      items: { type: 'string', enum: [...ALERT_TRIGGERS] },
      description:
        'Why the position is at its level, each trigger raising it to at least its own level (with debt): ' +
        'low_health_factor (below the low bound), stale_oracle (high: the oracle price of an asset held or owed is ' +
        "older than the wallet's oracleMaxAgeSeconds at the ledger's close time), pool_on_ice (medium), " +
        'pool_frozen (high), high_utilization (medium / high: a borrowed reserve at the utilization bounds), ' +
        'stablecoin_depeg (high: a stablecoin held or owed off $1 by more than depegBps), borrow_rate_jump (medium: ' +
        "a borrowed reserve's rate 1.5 x or more of the monitor's last round).",
    },
    collateralValueUsd: { type: 'number', description: 'Collateral at oracle prices, before the collateral factor.' },
    liabilityValueUsd: { type: 'number', description: 'Debt at oracle prices, before the liability factor.' },
    recommendedAction: { type: 'string', enum: [...RECOMMENDED_ACTIONS] },
    evaluatedAt: timestamp,
    liquidationPrices: {
      type: 'object',
      additionalProperties: { type: 'string', nullable: true, pattern: '^[0-9]+(\\.[0-9]+)?$' },
      example: { CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC: '0.2566666' },
      description:
        'Per collateral asset (C-address): the highest oracle price, in USD as a decimal string with the ' +
        "oracle's decimals, at which the health factor is at most 1.0 with every other price unchanged, solved in " +
        "the pool's integer math. For an asset also borrowed more than it backs (after the factors), the lowest " +
        'price, rising. null when no price of that asset alone brings the health factor to 1.0 (no debt, or the ' +
        'other collateral covers the debt). Below 1.0 already: the price the asset must exceed.',
    },
    healthFactorIf: {
      type: 'object',
      required: [...PRICE_DROP_SCENARIOS],
      properties: Object.fromEntries(
        PRICE_DROP_SCENARIOS.map((drop) => [drop, { type: 'number', nullable: true, example: HF_IF_EXAMPLE[drop] }]),
      ),
      description:
        "The health factor with every collateral asset's price down by 5, 10, 20 and 30 % together (prices " +
        'floored); debt prices unchanged, except a collateral asset that is also borrowed, whose debt moves with ' +
        'it. null without debt.',
    },
    liquidationBuffer: {
      type: 'number',
      nullable: true,
      example: 11.92659,
      description:
        'The smallest uniform collateral price drop, in percent (5 decimals, rounded up), at which the health ' +
        'factor is at most 1.0: 0 when it already is; null without debt or when no drop gets there (the debt is ' +
        'in the collateral assets themselves).',
    },
  },
};

export const RISK_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'walletAddress', 'positions', 'levels', 'evaluatedAt', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    walletAddress: { type: 'string' },
    positions: { type: 'array', items: RISK_POSITION_SCHEMA },
    levels: {
      type: 'object',
      description:
        'The level bounds riskLevel was judged by (health factors; below medium: medium, and so on): your ' +
        "account's risk configuration of the wallet, else the defaults 1.50 / 1.25 / 1.10.",
      required: ['medium', 'high', 'critical'],
      properties: { medium: { type: 'number' }, high: { type: 'number' }, critical: { type: 'number' } },
    },
    evaluatedAt: timestamp,
    timestamp,
  },
};

export const TRIGGER_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'evaluated', 'alerts', 'queued'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    evaluated: { type: 'integer', description: 'Wallets evaluated.' },
    alerts: { type: 'integer', description: 'Alerts raised: positions with debt at or above the minimum level.' },
    queued: { type: 'integer', description: 'Deliveries queued, one per (alert, channel).' },
  },
};
