import type { OperationObject, SchemaObject } from '@nestjs/swagger';
import { findDanglingRefs } from '@rp/platform';
import { ServiceDocument, canonicalJson, mergeServiceDocuments } from './merge-documents';

const envelope: SchemaObject = { type: 'object', properties: { code: { type: 'string' } } };
const json = (ref: string) => ({ content: { 'application/json': { schema: { $ref: ref } } } });

function txb(): ServiceDocument {
  return {
    service: 'txb',
    tag: { name: 'txb', description: 'Transactions' },
    document: {
      paths: {
        '/api/v1/txb/positions': {
          get: {
            tags: ['positions'],
            security: [{ apiKey: [] }, { walletProof: [] }],
            responses: { '200': { description: 'ok', ...json('#/components/schemas/PositionList') } },
          },
        },
      },
      tags: [{ name: 'positions', description: 'Blend positions' }, { name: 'unused' }],
      components: {
        schemas: {
          ErrorEnvelope: envelope,
          Position: { type: 'object', properties: { pool: { type: 'string' } } },
          PositionList: { type: 'array', items: { $ref: '#/components/schemas/Position' } },
        },
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer' },
          walletProof: { type: 'apiKey', in: 'header', name: 'X-Wallet-Proof' },
        },
      },
    },
  };
}

function notifications(): ServiceDocument {
  return {
    service: 'notifications',
    tag: { name: 'notifications' },
    document: {
      paths: {
        '/api/v1/rms/positions': {
          post: {
            security: [{ walletProof: [] }],
            requestBody: json('#/components/schemas/PositionList'),
            responses: { '400': { description: 'bad', ...json('#/components/schemas/ErrorEnvelope') } },
          },
        },
      },
      components: {
        schemas: {
          // Same keys in another order: the same definition.
          ErrorEnvelope: { properties: { code: { type: 'string' } }, type: 'object' },
          Position: { type: 'object', properties: { healthFactor: { type: 'number' } } },
          PositionList: { type: 'array', items: { $ref: '#/components/schemas/Position' } },
        },
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer' },
          walletProof: { type: 'apiKey', in: 'query', name: 'proof' },
        },
      },
    },
  };
}

describe('merging service documents', () => {
  const merged = mergeServiceDocuments([txb(), notifications()]);
  const schemas = merged.components.schemas as Record<string, SchemaObject>;
  const txbOperation = merged.paths['/api/v1/txb/positions'].get as OperationObject;
  const rmsOperation = merged.paths['/api/v1/rms/positions'].post as OperationObject;

  it('keeps every path of every service', () => {
    expect(Object.keys(merged.paths).sort()).toEqual(['/api/v1/rms/positions', '/api/v1/txb/positions']);
  });

  it('keeps one copy of a component both define the same way', () => {
    expect(schemas['ErrorEnvelope']).toEqual(envelope);
    expect(merged.components.securitySchemes?.['apiKey']).toEqual({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(schemas).filter((name) => name.endsWith('ErrorEnvelope'))).toEqual(['ErrorEnvelope']);
  });

  it('prefixes a component they define differently with the service name, in each service', () => {
    expect(schemas['Position']).toBeUndefined();
    expect(schemas['txb_Position']).toEqual({ type: 'object', properties: { pool: { type: 'string' } } });
    expect(schemas['notifications_Position']).toEqual({
      type: 'object',
      properties: { healthFactor: { type: 'number' } },
    });
  });

  it('renames a component whose only difference is that it now refers to a renamed one', () => {
    expect(schemas['txb_PositionList']).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/txb_Position' },
    });
    expect(schemas['notifications_PositionList']).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/notifications_Position' },
    });
    expect(merged.renamed).toEqual(['schemas/Position', 'schemas/PositionList', 'securitySchemes/walletProof']);
  });

  it("rewrites each service's references to its own renamed components", () => {
    expect(txbOperation.responses['200']).toMatchObject(json('#/components/schemas/txb_PositionList'));
    expect(rmsOperation.requestBody).toEqual(json('#/components/schemas/notifications_PositionList'));
    expect(rmsOperation.responses['400']).toMatchObject(json('#/components/schemas/ErrorEnvelope'));
  });

  it('renames security requirements along with a renamed security scheme', () => {
    expect(txbOperation.security).toEqual([{ apiKey: [] }, { txb_walletProof: [] }]);
    expect(rmsOperation.security).toEqual([{ notifications_walletProof: [] }]);
    expect(Object.keys(merged.components.securitySchemes ?? {}).sort()).toEqual([
      'apiKey',
      'notifications_walletProof',
      'txb_walletProof',
    ]);
  });

  it('leaves no reference dangling', () => {
    expect(findDanglingRefs(merged)).toEqual([]);
  });

  it("tags untagged operations with their service, keeps the service's own tags, and groups them", () => {
    expect(txbOperation.tags).toEqual(['positions']);
    expect(rmsOperation.tags).toEqual(['notifications']);
    expect(merged.tags).toEqual([
      { name: 'txb', description: 'Transactions' },
      { name: 'positions', description: 'Blend positions' },
      { name: 'notifications' },
    ]);
    expect(merged.tagGroups).toEqual([
      { name: 'txb', tags: ['txb', 'positions'] },
      { name: 'notifications', tags: ['notifications'] },
    ]);
  });

  it('leaves the documents it was given unchanged', () => {
    const input = txb();
    const before = canonicalJson(input);
    mergeServiceDocuments([input, notifications()]);
    expect(canonicalJson(input)).toBe(before);
  });

  it('keeps the first of two services that document the same operation, and says so', () => {
    const twice = mergeServiceDocuments([txb(), { ...txb(), service: 'copy', tag: undefined }]);
    expect(twice.conflicts).toEqual(['GET /api/v1/txb/positions']);
    expect(twice.renamed).toEqual([]);
  });

  it('catches a dangling reference when a service refers to a component it does not define', () => {
    const broken = notifications();
    delete broken.document.components?.schemas?.['PositionList'];
    const result = mergeServiceDocuments([broken]);
    expect(findDanglingRefs(result)).toEqual([
      { ref: '#/components/schemas/PositionList', at: expect.stringContaining('requestBody') },
    ]);
  });
});
