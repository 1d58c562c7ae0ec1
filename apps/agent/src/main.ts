import 'reflect-metadata';
import { existsSync } from 'node:fs';
import {
  ConfigError,
  EXIT_CONFIG,
  RedisClient,
  createAppLogger,
  describeConfig,
  loadConfig,
  redisOptions,
  secretValuesOf,
} from '@rp/platform-core';
import { AgentConfig } from './config/agent.config';
import { startAgent } from './agent-runtime';

/** In a container (Docker, Kubernetes) the status routes listen on every interface unless HOST says otherwise. */
function insideContainer(): boolean {
  return existsSync('/.dockerenv') || process.env['KUBERNETES_SERVICE_HOST'] !== undefined;
}

async function main(): Promise<void> {
  let config: AgentConfig;
  try {
    config = loadConfig(AgentConfig);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`agent: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
  if (!process.env['HOST'] && insideContainer()) config.HOST = '0.0.0.0';
  const logger = createAppLogger({
    appName: 'agent',
    level: config.LOG_LEVEL,
    // Every @Secret setting's value (the mnemonic, STATUS_TOKEN, NOTIFY_WEBHOOK_URL) is scrubbed from each line.
    secrets: secretValuesOf(config),
  });
  const redisSettings = config.configuredRedis();
  let redis: RedisClient | undefined;
  if (redisSettings) {
    redis = new RedisClient(redisOptions(redisSettings, 'agent'));
    let down = false;
    redis.on('error', (error: Error) => {
      if (!down) logger.warn(`Redis unreachable: ${error.message}`);
      down = true;
    });
    redis.on('ready', () => {
      if (down) logger.info('Redis reachable again');
      down = false;
    });
  }
  const runtime = await startAgent(config, logger, redis).catch(
    (error: unknown) => {
      process.stderr.write(`agent: failed to start: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
  logger.info({ config: describeConfig(config) }, `agent listening on ${config.HOST}:${config.PORT}`);

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`stopping (${reason})`);
    const deadline = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop(signal));
  if (process.send && process.env['RP_DEV_LAUNCHER'] === '1') process.once('disconnect', () => stop('launcher gone'));
}

void main();
