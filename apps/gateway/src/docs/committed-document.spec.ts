import type { OpenAPIObject } from '@nestjs/swagger';
import { committedDocument } from './committed-document';

function serviceDocument(paths: string[], extra: Partial<OpenAPIObject> = {}): OpenAPIObject {
  return {
    openapi: '3.0.3',
    info: { title: 'a service', version: '1.0.0' },
    paths: Object.fromEntries(
      paths.map((path) => [
        path,
        { get: { operationId: `get${path.length}`, responses: { '200': { description: 'ok' } } } },
      ]),
    ),
    ...extra,
  };
}

const DOCUMENTS = {
  subscription: serviceDocument(['/api/v1/keys/me']),
  txb: serviceDocument(['/api/v1/txb/status']),
  notifications: serviceDocument(['/api/v1/rms/risk/{walletAddress}']),
};

describe('committedDocument', () => {
  it('is the merged document as indented JSON ending in a newline, the same for the same documents', () => {
    const text = committedDocument(DOCUMENTS);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toBe(committedDocument(structuredClone(DOCUMENTS)));
    const document = JSON.parse(text) as OpenAPIObject & { 'x-unavailable-services': unknown[] };
    expect(Object.keys(document.paths)).toEqual([
      '/api/v1/keys/me',
      '/api/v1/rms/risk/{walletAddress}',
      '/api/v1/txb/status',
    ]);
    expect(document['x-unavailable-services']).toEqual([]);
    expect(text).toContain('\n  "paths": {\n');
  });

  it('refuses to leave a service out', () => {
    const withoutTxb = { subscription: DOCUMENTS.subscription, notifications: DOCUMENTS.notifications };
    expect(() => committedDocument(withoutTxb)).toThrow('no document of txb');
  });

  it('refuses a path the gateway would not route to the service documenting it', () => {
    const documents = { ...DOCUMENTS, txb: serviceDocument(['/api/v1/txb/status', '/api/v1/rms/elsewhere']) };
    expect(() => committedDocument(documents)).toThrow('txb: /api/v1/rms/elsewhere');
  });

  it('refuses a reference to nothing', () => {
    const broken = serviceDocument([]);
    broken.paths['/api/v1/txb/status'] = {
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Gone' } } },
          },
        },
      },
    };
    expect(() => committedDocument({ ...DOCUMENTS, txb: broken })).toThrow('a reference to nothing');
  });
});
