import { isUnder } from '../access/route-access';
import { GatewayConfig } from '../config/gateway.config';

/** A path prefix under `/api/v1` and the service that owns it. */
export interface ServiceRoute {
  prefix: string;
  service: string;
  target: string;
}

export function serviceRoutes(config: GatewayConfig): ServiceRoute[] {
  return [
    { prefix: '/api/v1/keys', service: 'subscription', target: config.SUBSCRIPTION_URL },
    { prefix: '/api/v1/txb', service: 'txb', target: config.TXB_URL },
    { prefix: '/api/v1/rms', service: 'notifications', target: config.NOTIFICATIONS_URL },
  ];
}

/** The route owning `path`, matching whole segments (`/api/v1/txbx` is nobody's). */
export function routeFor(routes: readonly ServiceRoute[], path: string): ServiceRoute | undefined {
  for (const route of routes) if (isUnder(path, route.prefix)) return route;
  return undefined;
}
