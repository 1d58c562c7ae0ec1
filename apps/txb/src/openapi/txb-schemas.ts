import type { SchemaObject } from '@nestjs/swagger';
import { PROPOSAL_STATUSES, RISK_LEVELS, TXB_ACTIONS, TxbWarningCode } from '@rp/contracts';

/** Answer schemas of txb's routes (request schemas come from the class-validator DTOs of `@rp/contracts`). */

const address = (description: string): SchemaObject => ({ type: 'string', description });
const amount: SchemaObject = {
  type: 'string',
  pattern: '^(0|[1-9][0-9]*)$',
  description: 'Base units (integer string).',
};
const timestamp: SchemaObject = { type: 'string', format: 'date-time' };

const builtTransaction: SchemaObject = {
  type: 'object',
  required: ['transactionXdr', 'sourceAddress', 'operations', 'createdAt'],
  properties: {
    transactionXdr: { type: 'string', description: 'Unsigned, simulated and assembled TransactionEnvelope (base64).' },
    sourceAddress: address('The wallet (G-address): source account and signer.'),
    operations: { type: 'integer', description: 'Requests in the pool invocation (a flash loan counts as one).' },
    fee: {
      type: 'string',
      pattern: '^[1-9][0-9]*$',
      example: '100',
      description:
        'The inclusion fee the transaction bids, stroops per operation, priced from getFeeStats at the feeLevel ' +
        'asked (the simulated resource fee is on top). Absent on proposals built before fees were priced.',
    },
    createdAt: timestamp,
  },
};

const metadata: SchemaObject = {
  type: 'object',
  required: ['poolAddress', 'tokenId', 'amount', 'action'],
  properties: {
    poolAddress: address('Blend pool (C-address).'),
    tokenId: address('Token (C-address): repaid, withdrawn, or approved.'),
    amount,
    action: { type: 'string', enum: [...TXB_ACTIONS] },
    route: {
      type: 'string',
      enum: ['submit', 'submit-with-allowance', 'flash-loan', 'approve'],
      description: 'UNWIND only: how the unwind is carried out; `approve` is the approval to land first.',
    },
    rescue: {
      type: 'object',
      description:
        'RESCUE only: the health factor aimed at and the requests paid in before DeleteLiquidationAuction (9). ' +
        'tokenId and amount above are the first of them (none: the largest debt and "0").',
      required: ['targetHealthFactor', 'requests'],
      properties: {
        targetHealthFactor: { type: 'number', example: 1.1 },
        requests: {
          type: 'array',
          items: {
            type: 'object',
            required: ['requestType', 'tokenId', 'amount'],
            properties: {
              requestType: { type: 'string', enum: ['Repay', 'SupplyCollateral'] },
              tokenId: address('Token (C-address) repaid or supplied as collateral.'),
              amount,
            },
          },
        },
      },
    },
  },
};

const failure: SchemaObject = {
  type: 'object',
  properties: {
    reason: { type: 'string', enum: ['expired', 'rejected', 'failed'] },
    resultCode: { type: 'string', example: 'txBadSeq' },
    contractError: {
      type: 'object',
      properties: { code: { type: 'integer', example: 1205 }, name: { type: 'string', example: 'InvalidHf' } },
    },
  },
};

export const BUILD_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'transaction', 'proposal', 'warnings', 'preview'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    transaction: { ...builtTransaction, required: [...(builtTransaction.required ?? []), 'fee'] },
    proposal: {
      type: 'object',
      required: ['id', 'status', 'expiresAt', 'metadata'],
      properties: {
        id: { type: 'string', example: 'txp-1767225600000-k3x9q2' },
        status: { type: 'string', enum: ['pending'] },
        expiresAt: timestamp,
        metadata,
      },
    },
    warnings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: Object.values(TxbWarningCode) }, message: { type: 'string' } },
      },
    },
    preview: {
      type: 'object',
      description: 'The position as the simulation leaves it; USD values in the oracle decimals.',
      properties: {
        healthFactorBefore: { type: 'number', nullable: true, description: 'null: no debt' },
        healthFactorAfter: { type: 'number', nullable: true },
        riskLevelAfter: { type: 'string', enum: [...RISK_LEVELS] },
        collateralValueUsdAfter: { type: 'string', example: '3000.0000000' },
        liabilityValueUsdAfter: { type: 'string', example: '0.0000000' },
      },
    },
  },
};

export const PROPOSALS_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'proposals', 'total', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    proposals: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'status', 'createdAt', 'expiresAt', 'transaction', 'metadata'],
        properties: {
          id: { type: 'string' },
          status: { type: 'string', enum: [...PROPOSAL_STATUSES] },
          createdAt: timestamp,
          expiresAt: timestamp,
          transaction: builtTransaction,
          metadata,
          txHash: { type: 'string' },
          ledger: { type: 'integer' },
          failure,
        },
      },
    },
    total: { type: 'integer' },
    timestamp,
  },
};

export const SUBMIT_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'txHash'],
  properties: { success: { type: 'boolean', enum: [true] }, txHash: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
};

export const STATUS_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'service', 'status', 'proposalsInMemory', 'timestamp'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    service: { type: 'string', enum: ['txb'] },
    status: { type: 'string', enum: ['ok', 'degraded'], description: 'degraded: proposals cannot be counted now' },
    proposalsInMemory: { type: 'integer', description: 'Proposals not yet confirmed or failed whose lifetime runs' },
    timestamp,
  },
};
