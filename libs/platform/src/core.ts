// The platform without Nest: settings, the logger and the Redis client, for a process that does not run Nest (the
// agent, which must stay within 150 MB). `@rp/platform` exports the same plus the Nest application around them.
export * from './lib/config/app-config';
export * from './lib/config/exit-config';
export * from './lib/config/load-config';
export * from './lib/config/setting-decorators';
export * from './lib/logging/app-logger';
export * from './lib/logging/redaction';
export * from './lib/redis/lua-script';
export * from './lib/redis/redis-leases';
export * from './lib/redis/redis-options';
export * from './lib/crypto/sealed-box';
