import type { SchemaObject } from '@nestjs/swagger';
import { ALERT_OUTCOMES, CHANNELS, HEALTH_RESOLUTIONS, HISTORY_ACTION_TYPES, RISK_LEVELS } from '@rp/contracts';

const time: SchemaObject = { type: 'string', format: 'date-time' };
const level: SchemaObject = { type: 'string', enum: [...RISK_LEVELS] };
const triggers: SchemaObject = { type: 'array', items: { type: 'string' } };
const nullableNumber: SchemaObject = { type: 'number', nullable: true };

/** The answer of `GET /api/v1/rms/alerts`. */
export const ALERT_HISTORY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'alerts', 'total', 'actions'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    alerts: {
      type: 'array',
      description: 'Newest first, at most `limit`.',
      items: {
        type: 'object',
        required: [
          'alertId',
          'walletAddress',
          'poolAddress',
          'riskLevel',
          'triggers',
          'healthFactor',
          'evaluatedAt',
          'channels',
        ],
        properties: {
          alertId: { type: 'string' },
          walletAddress: { type: 'string' },
          poolAddress: { type: 'string' },
          riskLevel: level,
          triggers,
          healthFactor: { type: 'number' },
          evaluatedAt: time,
          channels: {
            type: 'array',
            description: 'Each of your channel configurations of the wallet the alert met: where it stands now.',
            items: {
              type: 'object',
              required: ['channel', 'outcome', 'at'],
              properties: {
                channel: { type: 'string', enum: [...CHANNELS] },
                outcome: {
                  type: 'string',
                  enum: [...ALERT_OUTCOMES],
                  description:
                    '`queued` (taken in, not sent yet), `delivered`, `failed` (dead-lettered, `error` says why), ' +
                    "`suppressed` (held back by the cooldown, or below the channel's minimum level)",
                },
                at: time,
                error: { type: 'string' },
              },
            },
          },
        },
      },
    },
    total: { type: 'integer', description: 'Alerts matching the filters, `limit` aside.' },
    actions: {
      type: 'array',
      description: "Your agent's closes of the wallets (`POST /rms/events`), newest first, at most `limit`.",
      items: {
        type: 'object',
        required: ['eventId', 'type', 'walletAddress', 'occurredAt'],
        properties: {
          eventId: { type: 'string' },
          type: { type: 'string', enum: [...HISTORY_ACTION_TYPES] },
          walletAddress: { type: 'string' },
          poolAddress: { type: 'string' },
          healthFactorBefore: nullableNumber,
          healthFactorAfter: nullableNumber,
          txHash: { type: 'string' },
          occurredAt: time,
        },
      },
    },
  },
};

/** The answer of `GET /api/v1/rms/history/:walletAddress`. */
export const HEALTH_HISTORY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'walletAddress', 'resolution', 'from', 'to', 'series'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    walletAddress: { type: 'string' },
    resolution: {
      type: 'string',
      enum: [...HEALTH_RESOLUTIONS],
      description: 'Every monitor round, or one point per hour or day (the worst of it).',
    },
    from: time,
    to: time,
    series: {
      type: 'array',
      items: {
        type: 'object',
        required: ['poolAddress', 'points'],
        properties: {
          poolAddress: { type: 'string' },
          points: {
            type: 'array',
            description: 'Oldest first, at most 2000.',
            items: {
              type: 'object',
              required: ['at', 'healthFactor', 'riskLevel', 'triggers'],
              properties: { at: time, healthFactor: nullableNumber, riskLevel: level, triggers },
            },
          },
        },
      },
    },
  },
};
