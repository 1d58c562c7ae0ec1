import type { SchemaObject } from '@nestjs/swagger';
import { KEY_TIERS } from '@rp/contracts';

const dateTime: SchemaObject = { type: 'string', format: 'date-time' };
const tier: SchemaObject = { type: 'string', enum: [...KEY_TIERS] };

/** `SubscriptionGrant`: the key, shown once, and what it allows. */
export const GRANT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['apiKey', 'tier', 'rateLimit', 'expiresAt', 'durationDays', 'network'],
  properties: {
    apiKey: { type: 'string', description: 'The API key; shown in this answer only.' },
    tier,
    rateLimit: { type: 'integer', description: 'Requests per minute.' },
    expiresAt: dateTime,
    durationDays: { type: 'integer' },
    network: { type: 'string', example: 'stellar:testnet' },
    message: { type: 'string', description: 'Direct flow only.' },
    payTo: { type: 'string', description: 'Server-assisted flow only: the receiver paid.' },
  },
};

/** `SettlingPayment`: sent, not final yet; `Retry-After` says when to send the same request again. */
export const SETTLING_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['status', 'txHash'],
  properties: { status: { type: 'string', enum: ['settling'] }, txHash: { type: 'string' } },
};

/** `PreparedPayment`: the transfer to authorize, step 1 of the server-assisted flow. */
export const PREPARED_PAYMENT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['txJson', 'preimageXdrs', 'maxLedger', 'networkPassphrase', 'x402Version'],
  properties: {
    txJson: { type: 'string' },
    preimageXdrs: { type: 'array', items: { type: 'string' } },
    maxLedger: { type: 'integer' },
    networkPassphrase: { type: 'string' },
    x402Version: { type: 'integer' },
  },
};

/** `SubscriptionStatus` of an email. */
export const SUBSCRIPTION_STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['active', 'tier', 'rateLimit', 'expiresAt', 'lastPayment'],
  properties: {
    active: { type: 'boolean' },
    tier,
    rateLimit: { type: 'integer' },
    expiresAt: dateTime,
    lastPayment: {
      type: 'object',
      required: ['network', 'amountUsd', 'txHash', 'paidAt'],
      properties: {
        network: { type: 'string' },
        amountUsd: { type: 'string', example: '0.10' },
        txHash: { type: 'string' },
        paidAt: dateTime,
      },
    },
    settling: {
      type: 'object',
      description: 'Present while a payment of this email is being settled.',
      required: ['txHash', 'since'],
      properties: { txHash: { type: 'string' }, since: dateTime },
    },
  },
};

/** A partner key as issued: the key (shown once) and its terms. */
export const PARTNER_KEY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['apiKey', 'keyId', 'tier', 'rateLimit', 'burst', 'expiresAt', 'account', 'durationDays', 'network'],
  properties: {
    apiKey: { type: 'string', description: 'The API key; shown in this answer only.' },
    keyId: { type: 'string', format: 'uuid' },
    tier,
    rateLimit: { type: 'integer' },
    burst: { type: 'integer' },
    expiresAt: dateTime,
    account: { type: 'string', example: 'partner:acme' },
    durationDays: { type: 'integer' },
    network: { type: 'string' },
    message: { type: 'string' },
  },
};

/** A revoked key. */
export const REVOKED_KEY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['keyId', 'revokedAt'],
  properties: { keyId: { type: 'string', format: 'uuid' }, revokedAt: dateTime },
};
