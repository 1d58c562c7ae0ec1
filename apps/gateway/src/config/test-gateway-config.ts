import { loadConfig } from '@rp/platform';
import { GatewayConfig } from './gateway.config';

/**
 * The settings of a gateway under test (integration specs): every service at `service`, the test Redis, and
 * per-IP and failure buckets too large to refuse anything; `overrides` on top.
 */
export function testGatewayConfig(service: string, overrides: Record<string, string> = {}): GatewayConfig {
  return loadConfig(GatewayConfig, {
    LOG_LEVEL: 'silent',
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    SUBSCRIPTION_URL: service,
    TXB_URL: service,
    NOTIFICATIONS_URL: service,
    PUBLIC_RATE_LIMIT: '100000',
    PUBLIC_BURST: '100000',
    KEY_FAILURE_BURST: '100000',
    KEY_FAILURE_RATE_LIMIT: '100000',
    ...overrides,
  });
}
