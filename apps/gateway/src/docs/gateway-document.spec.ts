import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { ERROR_ENVELOPE_SCHEMA, SECURITY_SCHEMES, findDanglingRefs } from '@rp/platform';
import { gatewayDocument } from './gateway-document';
import { ServiceDocument } from './merge-documents';

function subscription(): ServiceDocument {
  return {
    service: 'subscription',
    tag: { name: 'subscription' },
    document: {
      paths: {
        '/api/v1/keys/subscribe': {
          post: { responses: { '200': { description: 'A key' }, '402': { description: 'Pay first' } } },
        },
        '/api/v1/keys/me': {
          get: {
            security: [{ apiKey: [] }, { apiKeyHeader: [] }],
            responses: { '200': { description: 'Your key', headers: { 'RateLimit-Limit': { description: 'own' } } } },
          },
        },
      },
      components: {
        schemas: { ErrorEnvelope: JSON.parse(JSON.stringify(ERROR_ENVELOPE_SCHEMA)) },
        securitySchemes: JSON.parse(JSON.stringify(SECURITY_SCHEMES)),
      },
    },
  };
}

describe('the gateway document', () => {
  const document = gatewayDocument([subscription()], [{ service: 'txb', reason: 'unreachable' }]);
  const subscribe = document.paths['/api/v1/keys/subscribe'].post as OperationObject;
  const me = document.paths['/api/v1/keys/me'].get as OperationObject;

  it('is served from the gateway root and says how to authenticate', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(document.servers).toEqual([{ url: '/' }]);
    expect(document.info.description).toContain('`Authorization: Bearer <key>` or as `X-API-Key: <key>`');
  });

  it('declares every security scheme once, and the rate-limit headers and 401/429 answers as components', () => {
    expect(document.components?.securitySchemes).toEqual(SECURITY_SCHEMES);
    expect(Object.keys(document.components?.headers ?? {}).sort()).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
    ]);
    const rateLimited = document.components?.responses?.['RateLimited'] as ResponseObject;
    expect(rateLimited.headers?.['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(document.components?.responses?.['Unauthorized']).toBeDefined();
  });

  it('documents a 429 on every operation and a 401 only where a key is needed', () => {
    expect(subscribe.responses['429']).toEqual({ $ref: '#/components/responses/RateLimited' });
    expect(subscribe.responses['401']).toBeUndefined();
    expect(me.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(me.responses['402']).toBeUndefined();
    expect(subscribe.responses['402']).toEqual({ description: 'Pay first' });
  });

  it("adds the rate-limit headers to success answers, keeping a service's own description", () => {
    expect((subscribe.responses['200'] as ResponseObject).headers).toEqual({
      'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
      'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
      'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
    });
    expect((me.responses['200'] as ResponseObject).headers?.['RateLimit-Limit']).toEqual({ description: 'own' });
  });

  it('names a service that is missing, in the description and in x-unavailable-services', () => {
    expect(document['x-unavailable-services']).toEqual([{ service: 'txb', reason: 'unreachable' }]);
    expect(document.info.description).toContain('txb (unreachable)');
    expect(document.tags).toEqual([{ name: 'subscription' }]);
  });

  it('resolves every reference, with services or without any', () => {
    expect(findDanglingRefs(document)).toEqual([]);
    const empty: OpenAPIObject = gatewayDocument([], []);
    expect(empty.paths).toEqual({});
    expect(findDanglingRefs(empty)).toEqual([]);
    expect(empty.components?.securitySchemes).toEqual(SECURITY_SCHEMES);
    expect(empty.info.description).not.toContain('Not documented right now');
  });
});
