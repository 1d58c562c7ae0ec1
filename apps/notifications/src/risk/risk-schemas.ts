import type { SchemaObject } from '@nestjs/swagger';
import { RECOMMENDED_ACTIONS, RISK_LEVELS } from '@rp/contracts';

/** Answer schemas of the risk route and the admin trigger (requests come from the DTOs of `@rp/contracts`). */

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };

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
    triggers: { type: 'array', items: { type: 'string', enum: ['low_health_factor'] } },
    collateralValueUsd: { type: 'number', description: 'Collateral at oracle prices, before the collateral factor.' },
    liabilityValueUsd: { type: 'number', description: 'Debt at oracle prices, before the liability factor.' },
    recommendedAction: { type: 'string', enum: [...RECOMMENDED_ACTIONS] },
    evaluatedAt: timestamp,
  },
};

export const RISK_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'walletAddress', 'positions', 'evaluatedAt', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    walletAddress: { type: 'string' },
    positions: { type: 'array', items: RISK_POSITION_SCHEMA },
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
