import { routeAccess } from './route-access';

describe('the gateway route access table', () => {
  it.each([
    ['POST', '/api/v1/keys/subscribe'],
    ['GET', '/api/v1/keys/subscribe'],
    ['POST', '/api/v1/keys/subscribe/prepare'],
    ['POST', '/api/v1/keys/subscribe/complete'],
    ['GET', '/api/v1/keys/subscribe/status'],
    ['POST', '/api/v1/keys/subscribe/'],
    ['GET', '/api/v1/txb/status'],
    ['HEAD', '/api/v1/txb/status'],
  ])('%s %s is public', (method, path) => {
    expect(routeAccess(method, path)).toBe('public');
  });

  it.each([
    ['POST', '/api/v1/keys/partners'],
    ['GET', '/api/v1/keys/partners/abc/keys'],
    ['DELETE', '/api/v1/keys/admin/keys/k1'],
    ['POST', '/api/v1/rms/notifications/trigger'],
    ['GET', '/api/v1/rms/notifications/dlq'],
    ['POST', '/api/v1/rms/notifications/dlq/redrive/all'],
    ['GET', '/api/v1/rms/notifications/queues'],
    ['GET', '/api/v1/rms/notifications/queues/api/queues'],
  ])('%s %s is an admin route (checked by the service)', (method, path) => {
    expect(routeAccess(method, path)).toBe('admin');
  });

  it('takes the inbound webhook by POST only', () => {
    expect(routeAccess('POST', '/api/v1/rms/notifications/webhook')).toBe('webhook');
    expect(routeAccess('GET', '/api/v1/rms/notifications/webhook')).toBe('key');
  });

  it.each([
    ['GET', '/api/v1/keys/me'],
    ['POST', '/api/v1/txb/status'],
    ['GET', '/api/v1/txb/statuses'],
    ['GET', '/api/v1/keys/subscribe/other'],
    ['GET', '/api/v1/keys/subscribers'],
    ['GET', '/api/v1/keys/partnership'],
    ['GET', '/api/v1/keys/administrator'],
    ['POST', '/api/v1/rms/notifications/trigger/extra'],
    ['GET', '/api/v1/rms/notifications/dlqx'],
    ['POST', '/api/v1/txb/build'],
    ['GET', '/api/v1/rms/risk/GABC'],
    ['GET', '/api/v1'],
  ])('%s %s needs an API key (whole segments only)', (method, path) => {
    expect(routeAccess(method, path)).toBe('key');
  });

  it.each(['/health/ready', '/metrics', '/api/docs', '/api/v2/keys/me', '/api/v1x/keys'])(
    '%s is not under /api/v1',
    (path) => {
      expect(routeAccess('GET', path)).toBeUndefined();
    },
  );
});
