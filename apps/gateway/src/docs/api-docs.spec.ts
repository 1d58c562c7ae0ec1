import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { HttpClient, loadConfig, verifyInternalRequest } from '@rp/platform';
import { GatewayConfig } from '../config/gateway.config';
import { ApiDocs } from './api-docs';
import { ServiceDocuments } from './service-documents';

const TOKEN = 'internal-token-for-the-docs-test';

interface FakeService {
  url: string;
  hits: IncomingMessage[];
  close(): Promise<void>;
}

interface FakeServiceOptions {
  delayMs?: number;
  silent?: boolean;
  body?: unknown;
  port?: number;
}

/** A service on loopback answering `/openapi.json` (after `delayMs`) to calls signed with TOKEN, 403 to others. */
async function service(prefix: string, options: FakeServiceOptions = {}): Promise<FakeService> {
  const hits: IncomingMessage[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(req);
    if (options.silent) return;
    const verified = verifyInternalRequest(TOKEN, {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
    });
    const answer = () => {
      if (!verified.ok) return res.writeHead(403).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      const document = {
        openapi: '3.0.3',
        info: { title: prefix, version: '1.0.0' },
        paths: {
          [`/api/v1/${prefix}/things`]: { get: { responses: { '200': { description: 'things' } } } },
          '/api/v1/elsewhere': { get: { responses: { '200': { description: 'not routed here' } } } },
        },
      };
      res.end(JSON.stringify(options.body ?? document));
    };
    setTimeout(answer, options.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the merged API document', () => {
  let keys: FakeService;
  let txb: FakeService;
  let silent: FakeService;
  let now: number;

  beforeAll(() => {
    // Each round warns about the missing service and the path left out; the assertions cover both.
    Logger.overrideLogger(false);
  });

  beforeEach(async () => {
    keys = await service('keys', { delayMs: 50 });
    txb = await service('txb');
    silent = await service('rms', { silent: true });
    now = 1_000_000;
  });

  afterEach(async () => {
    await Promise.all([keys.close(), txb.close(), silent.close()]);
  });

  function docs(token = TOKEN): ApiDocs {
    const config = loadConfig(GatewayConfig, {
      SUBSCRIPTION_URL: keys.url,
      TXB_URL: txb.url,
      NOTIFICATIONS_URL: silent.url,
      UPSTREAM_TIMEOUT_MS: '1000',
      INTERNAL_TOKEN: token,
    });
    return new ApiDocs(new ServiceDocuments(new HttpClient(), config), { refreshMs: 30_000, now: () => now });
  }

  it('merges the services that answer and names the one that does not answer in time', async () => {
    const started = Date.now();
    const document = await docs().document();
    // The 1 s upstream timeout, not the silent service, decides (with room for a busy machine).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Object.keys(document.paths)).toEqual(['/api/v1/keys/things', '/api/v1/txb/things']);
    expect(document['x-unavailable-services']).toEqual([{ service: 'notifications', reason: 'timeout' }]);
    expect(document.info.description).toContain('notifications (timeout)');
  });

  it('leaves out a path the gateway would not route to the service that documents it', async () => {
    const document = await docs().document();
    // Both services documented /api/v1/elsewhere beside their own path: their own paths are kept, it is not.
    expect(document['x-unavailable-services']).toEqual([{ service: 'notifications', reason: 'timeout' }]);
    expect(Object.keys(document.paths).sort()).toEqual(['/api/v1/keys/things', '/api/v1/txb/things']);
    expect(document.paths['/api/v1/keys/things']).toMatchObject({
      get: { responses: { '200': { description: 'things' } } },
    });
    expect(document.paths['/api/v1/elsewhere']).toBeUndefined();
  });

  it('signs its calls when INTERNAL_TOKEN is set, and counts a refusal as unavailable', async () => {
    expect(keys.hits).toHaveLength(0);
    await docs().document();
    expect(keys.hits[0].headers['x-rp-signature']).toMatch(/^v2=/);
    const refused = await docs('another-token-of-sixteen-chars').document();
    expect(refused['x-unavailable-services']).toEqual(
      expect.arrayContaining([
        { service: 'subscription', reason: 'answered 403' },
        { service: 'txb', reason: 'answered 403' },
      ]),
    );
  });

  it('shares one rebuild among concurrent requests', async () => {
    const apiDocs = docs();
    const documents = await Promise.all([apiDocs.document(), apiDocs.document(), apiDocs.document()]);
    expect(keys.hits).toHaveLength(1);
    expect(txb.hits).toHaveLength(1);
    expect(documents[1]).toBe(documents[0]);
    expect(documents[2]).toBe(documents[0]);
  });

  it('serves the same document for 30 s, then fetches again on demand', async () => {
    const apiDocs = docs();
    const first = await apiDocs.document();
    now += 29_999;
    expect(await apiDocs.document()).toBe(first);
    expect(keys.hits).toHaveLength(1);
    now += 1;
    const second = await apiDocs.document();
    expect(second).not.toBe(first);
    expect(keys.hits).toHaveLength(2);
  });

  it('shows a service again once it answers, at the next rebuild', async () => {
    const apiDocs = docs();
    const port = Number(new URL(keys.url).port);
    await keys.close();
    const without = await apiDocs.document();
    expect(without['x-unavailable-services']).toContainEqual({ service: 'subscription', reason: 'unreachable' });
    keys = await service('keys', { port });
    now += 30_000;
    const back = await apiDocs.document();
    expect(back['x-unavailable-services']).toEqual([{ service: 'notifications', reason: 'timeout' }]);
    expect(Object.keys(back.paths)).toContain('/api/v1/keys/things');
  });

  it('refuses an answer that is not an OpenAPI 3 document', async () => {
    await txb.close();
    txb = await service('txb', { body: { swagger: '2.0', paths: {} } });
    const document = await docs().document();
    expect(document['x-unavailable-services']).toContainEqual({ service: 'txb', reason: 'not an OpenAPI 3 document' });
  });
});
