/**
 * The API documentation as real processes serve it: txb and notifications publish their documents (with
 * INTERNAL_TOKEN set, as in production), the gateway merges them and serves Swagger UI at /api/docs.
 * The subscription service is pointed at a closed port: it must be reported missing, not break the page.
 */
import { AppProcess, freePort } from '@rp/dev';
import { findDanglingRefs } from '@rp/platform';
import { startApp } from './support/running-apps';

const INTERNAL_TOKEN = 'api-docs-e2e-internal-token-0123';

interface MergedDocument {
  openapi: string;
  info: { title: string; description: string };
  servers: { url: string }[];
  paths: Record<string, unknown>;
  components: {
    securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }>;
    headers: Record<string, unknown>;
    responses: Record<string, { headers?: Record<string, unknown> }>;
    schemas: Record<string, unknown>;
  };
  'x-unavailable-services': { service: string; reason: string }[];
}

/** `src` and `href` of the page's scripts, stylesheets and icons, in document order. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
}

describe('the API docs behind the gateway', () => {
  let txb: AppProcess;
  let notifications: AppProcess;
  let gateway: AppProcess;

  beforeAll(async () => {
    [txb, notifications] = await Promise.all([
      startApp('txb', { INTERNAL_TOKEN }),
      startApp('notifications', { INTERNAL_TOKEN }),
    ]);
    gateway = await startApp('gateway', {
      INTERNAL_TOKEN,
      SUBSCRIPTION_URL: `http://127.0.0.1:${await freePort()}`,
      TXB_URL: txb.url,
      NOTIFICATIONS_URL: notifications.url,
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([gateway?.stop(), txb?.stop(), notifications?.stop()]);
  });

  it('serves a Swagger UI page whose scripts are files of its own origin, allowed by its CSP', async () => {
    const response = await fetch(`${gateway.url}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<div id="swagger-ui">');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/api\/docs\//);
      expect(body.trim()).toBe('');
    }
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('answers every asset the page references with 200 and its content type', async () => {
    const html = await (await fetch(`${gateway.url}/api/docs`)).text();
    const assets = assetsOf(html);
    expect(assets).toEqual(
      expect.arrayContaining([
        '/api/docs/swagger-ui.css',
        '/api/docs/swagger-ui-bundle.js',
        '/api/docs/swagger-ui-init.js',
      ]),
    );
    const expected: Record<string, RegExp> = {
      '.css': /^text\/css/,
      '.js': /^(text|application)\/javascript/,
      '.png': /^image\/png/,
    };
    for (const asset of assets) {
      const answer = await fetch(new URL(asset, gateway.url));
      expect({ asset, status: answer.status }).toEqual({ asset, status: 200 });
      const extension = asset.slice(asset.lastIndexOf('.'));
      expect(answer.headers.get('content-type')).toMatch(expected[extension]);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${gateway.url}/api/docs/swagger-ui-init.js`)).text();
    expect(init).toContain("url: '/api/docs/openapi.json'");
    const bundle = await (await fetch(`${gateway.url}/api/docs/swagger-ui-bundle.js`)).text();
    expect(bundle).toContain('SwaggerUIBundle');
  });

  it('serves nothing of swagger-ui-dist beyond what the page needs', async () => {
    for (const path of ['/api/docs/index.html', '/api/docs/swagger-initializer.js']) {
      expect({ path, status: (await fetch(`${gateway.url}${path}`)).status }).toEqual({ path, status: 404 });
    }
    // An escaped slash is not a canonical request target (ADR 017): refused before any route is looked at.
    const traversal = '/api/docs/..%2fpackage.json';
    expect({ path: traversal, status: (await fetch(`${gateway.url}${traversal}`)).status }).toEqual({
      path: traversal,
      status: 400,
    });
  });

  it('serves the merged OpenAPI 3 document with the security schemes and rate-limit headers', async () => {
    const response = await fetch(`${gateway.url}/api/docs/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const document = (await response.json()) as MergedDocument;
    expect(document.openapi).toMatch(/^3\.0\.\d+$/);
    expect(document.servers).toEqual([{ url: '/' }]);
    expect(document.components.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      adminKey: { type: 'apiKey', in: 'header', name: 'x-admin-key' },
      payment: { type: 'apiKey', in: 'header', name: 'X-PAYMENT-SIGNATURE' },
      webhookSecret: { type: 'apiKey', in: 'header', name: 'X-Webhook-Secret' },
    });
    expect(Object.keys(document.components.headers).sort()).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
    ]);
    expect(Object.keys(document.components.responses.RateLimited.headers ?? {})).toContain('Retry-After');
    expect(document.components.responses.Unauthorized).toBeDefined();
    expect(document.components.schemas.ErrorEnvelope).toBeDefined();
    expect(document.info.description).toContain('X-API-Key');
    expect(findDanglingRefs(document)).toEqual([]);
  });

  it('reports the service that is down instead of failing, and merges the ones that answered', async () => {
    const document = (await (await fetch(`${gateway.url}/api/docs/openapi.json`)).json()) as MergedDocument;
    // txb and notifications run with INTERNAL_TOKEN: their documents reached the gateway through signed calls.
    expect(document['x-unavailable-services']).toEqual([{ service: 'subscription', reason: 'unreachable' }]);
    expect(document.info.description).toContain('subscription (unreachable)');
  });

  it('reaches the services through signed calls: an unsigned request for the same document is refused', async () => {
    expect((await fetch(`${txb.url}/openapi.json`)).status).toBe(403);
    expect((await fetch(`${notifications.url}/openapi.json`)).status).toBe(403);
  });

  it('does not publish a document of its own, nor forward a service document from outside', async () => {
    expect((await fetch(`${gateway.url}/openapi.json`)).status).toBe(404);
  });
});
