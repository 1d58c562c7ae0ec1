import type { SchemaObject } from '@nestjs/swagger';

const healthFactor: SchemaObject = { type: 'number', example: 1.25 };
const bps: SchemaObject = { type: 'integer' };

/** The answer of `GET|PUT /api/v1/rms/config/:walletAddress`. */
export const RISK_CONFIG_SCHEMA: SchemaObject = {
  type: 'object',
  required: [
    'success',
    'walletAddress',
    'levels',
    'oracleMaxAgeSeconds',
    'utilizationWarnBps',
    'utilizationAlertBps',
    'depegBps',
    'defaults',
    'updatedAt',
  ],
  properties: {
    success: { type: 'boolean', enum: [true] },
    walletAddress: { type: 'string' },
    levels: {
      type: 'object',
      required: ['medium', 'high', 'critical'],
      properties: { medium: healthFactor, high: healthFactor, critical: healthFactor },
    },
    oracleMaxAgeSeconds: { type: 'integer' },
    utilizationWarnBps: bps,
    utilizationAlertBps: bps,
    depegBps: bps,
    defaults: {
      type: 'array',
      items: { type: 'string' },
      description: 'The fields at their default, dotted (`levels.high`)',
    },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};
