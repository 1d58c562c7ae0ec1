import { applyDecorators } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { SchemaObject, SecuritySchemeObject } from '@nestjs/swagger';

/** Names of the security schemes every document declares; controllers refer to them in `@ApiSecurity(...)`. */
export const SecuritySchemeName = {
  /** `Authorization: Bearer <API key>`. */
  apiKey: 'apiKey',
  /** `X-API-Key: <API key>`, the same key in its own header. */
  apiKeyHeader: 'apiKeyHeader',
  /** `x-admin-key`: operator routes (notification trigger, DLQ, partner keys). */
  adminKey: 'adminKey',
  /** `X-PAYMENT-SIGNATURE`: the x402 payment of the direct subscription flow. */
  payment: 'payment',
  /** `X-Webhook-Secret`: the inbound alert webhook. */
  webhookSecret: 'webhookSecret',
} as const;
export type SecuritySchemeName = (typeof SecuritySchemeName)[keyof typeof SecuritySchemeName];

export const SECURITY_SCHEMES: Readonly<Record<SecuritySchemeName, SecuritySchemeObject>> = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key (rp_live_... or rp_test_...)',
    description: 'The API key as a bearer token: `Authorization: Bearer rp_live_...`.',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'The API key in its own header, for clients that cannot set Authorization.',
  },
  adminKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-admin-key',
    description: "The operator's admin key.",
  },
  payment: {
    type: 'apiKey',
    in: 'header',
    name: 'X-PAYMENT-SIGNATURE',
    description: 'base64 JSON of an x402 v2 PaymentPayload; `PAYMENT-SIGNATURE` and `X-PAYMENT` are accepted too.',
  },
  webhookSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Secret',
    description: 'The shared secret of the inbound alert webhook.',
  },
};

export const ERROR_ENVELOPE_SCHEMA_NAME = 'ErrorEnvelope';
export const ERROR_ENVELOPE_REF = `#/components/schemas/${ERROR_ENVELOPE_SCHEMA_NAME}`;

/** The body of every error answer (DECISIONS.md, Error envelope); mirrors `ErrorEnvelope` in contracts. */
export const ERROR_ENVELOPE_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'The body of every error answer. Some answers add fields (the 402 adds the payment requirements).',
  required: ['success', 'status', 'code', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    status: { type: 'integer', description: 'The HTTP status, repeated.', example: 400 },
    code: { type: 'string', description: 'Stable machine-readable code.', example: 'VALIDATION_FAILED' },
    error: { type: 'string', description: 'What went wrong, for a human.' },
    details: {
      type: 'array',
      description: 'One entry per invalid input field.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: {
          field: { type: 'string', description: 'Dotted path of the field.', example: 'walletAddress' },
          message: { type: 'string', example: 'must be a valid ledger G-address' },
        },
      },
    },
    requestId: { type: 'string', description: 'The `x-request-id` of the exchange, for support.' },
  },
};

/** `@ApiErrorResponse(404, 'No such proposal')`: an error answer documented with the shared envelope. */
export function ApiErrorResponse(status: number, description: string): MethodDecorator & ClassDecorator {
  return ApiResponse({ status, description, schema: { $ref: ERROR_ENVELOPE_REF } });
}

/** The route needs an API key, as a bearer token or in `X-API-Key` (either one). */
export function ApiKeyAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiSecurity(SecuritySchemeName.apiKey), ApiSecurity(SecuritySchemeName.apiKeyHeader));
}
