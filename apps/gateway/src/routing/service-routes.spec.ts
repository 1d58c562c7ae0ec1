import { loadConfig } from '@rp/platform';
import { GatewayConfig } from '../config/gateway.config';
import { routeFor, serviceRoutes } from './service-routes';

describe('gateway service routes', () => {
  const routes = serviceRoutes(
    loadConfig(GatewayConfig, { SUBSCRIPTION_URL: 'http://subscription:3001', TXB_URL: 'http://txb:3002' }),
  );

  it.each([
    ['/api/v1/keys/subscribe', 'subscription', 'http://subscription:3001'],
    ['/api/v1/keys', 'subscription', 'http://subscription:3001'],
    ['/api/v1/txb/build', 'txb', 'http://txb:3002'],
    ['/api/v1/rms/notifications/messenger', 'notifications', 'http://127.0.0.1:3003'],
  ])('sends %s to %s', (path, service, target) => {
    expect(routeFor(routes, path)).toMatchObject({ service, target });
  });

  it.each(['/api/v1/txbx', '/api/v1/keysubscribe', '/api/v1', '/health/ready', '/api/v2/keys/subscribe'])(
    'owns nothing at %s (whole segments only)',
    (path) => {
      expect(routeFor(routes, path)).toBeUndefined();
    },
  );

  it('refuses an upstream that is not an http(s) URL', () => {
    expect(() => loadConfig(GatewayConfig, { TXB_URL: 'txb:3002' })).toThrow(
      'TXB_URL must be an http:// or https:// URL (got "txb:3002")',
    );
  });
});
