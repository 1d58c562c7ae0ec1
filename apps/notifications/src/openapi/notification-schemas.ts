import type { SchemaObject } from '@nestjs/swagger';
import { CHANNELS, RISK_LEVELS } from '@rp/contracts';

/** Answer schemas of the notification routes (request schemas come from the DTOs of `@rp/contracts`). */

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const channel: SchemaObject = { type: 'string', enum: [...CHANNELS] };
const channels: SchemaObject = { type: 'array', items: channel };

const channelView: SchemaObject = {
  type: 'object',
  required: ['enabled', 'minRiskLevel', 'updatedAt'],
  properties: {
    enabled: { type: 'boolean' },
    minRiskLevel: { type: 'string', enum: [...RISK_LEVELS] },
    messengerChatId: { type: 'string' },
    messengerBotToken: {
      type: 'string',
      nullable: true,
      description: 'Masked (`123456:****abcd`); null: the server bot.',
    },
    channelWebhook: { type: 'string', description: 'Masked: scheme, host and first path segments only.' },
    email: { type: 'string' },
    disabledReason: { type: 'string', description: 'Why the service disabled the channel (a blocked bot).' },
    updatedAt: timestamp,
  },
};

export const CONFIGURATION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'walletAddress', 'enabledChannels', 'channels', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    walletAddress: { type: 'string' },
    enabledChannels: channels,
    messengerChatId: { type: 'string' },
    messengerBotToken: { type: 'string', nullable: true },
    channelWebhook: { type: 'string' },
    email: { type: 'string' },
    channels: {
      type: 'object',
      properties: { messenger: channelView, channelhook: channelView, email: channelView },
    },
    timestamp,
  },
};

export const DELETED_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'walletAddress', 'channel', 'deleted', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    walletAddress: { type: 'string' },
    channel,
    deleted: { type: 'boolean', enum: [true] },
    timestamp,
  },
};

export const TEST_MESSAGE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'alertId', 'channel', 'jobId', 'enabled', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    alertId: { type: 'string' },
    channel,
    jobId: { type: 'string', description: 'The delivery job (one per alert and channel).' },
    enabled: { type: 'boolean', description: 'false: the channel is disabled and nothing will be sent.' },
    timestamp,
  },
};

export const WEBHOOK_ANSWER_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'alertId', 'queued', 'suppressed'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    alertId: { type: 'string' },
    queued: { ...channels, description: 'Channels a delivery was queued for.' },
    suppressed: { ...channels, description: 'Enabled channels held back (below their minimum, or in cooldown).' },
    duplicate: { type: 'boolean', enum: [true], description: 'The alertId was accepted in the last 24 hours.' },
  },
};

const deadLetter: SchemaObject = {
  type: 'object',
  required: [
    'id',
    'alertId',
    'walletAddress',
    'channel',
    'destination',
    'attempts',
    'lastError',
    'firstAttemptAt',
    'failedAt',
    'expiresAt',
  ],
  properties: {
    id: { type: 'string', description: 'The delivery job id; re-drives reuse it.' },
    alertId: { type: 'string' },
    walletAddress: { type: 'string' },
    channel,
    destination: { type: 'string', description: 'Masked.' },
    attempts: { type: 'integer' },
    lastError: { type: 'string' },
    firstAttemptAt: timestamp,
    failedAt: timestamp,
    expiresAt: timestamp,
  },
};

export const DLQ_STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'total', 'countsByChannel', 'oldest', 'latest', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    total: { type: 'integer' },
    countsByChannel: {
      type: 'object',
      properties: Object.fromEntries(CHANNELS.map((c) => [c, { type: 'integer' }])),
    },
    oldest: { ...deadLetter, nullable: true },
    latest: { type: 'array', items: deadLetter, description: 'The 50 newest entries, newest first.' },
    timestamp,
  },
};

export const REDRIVE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'redriven', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    redriven: { type: 'array', items: { type: 'string' }, description: 'Job ids queued again.' },
    timestamp,
  },
};
