import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '../config/app-config';
import { EXIT_CONFIG } from '../config/exit-config';
import { ConfigError, describeConfig, loadConfig } from '../config/load-config';
import { AppDefinition } from './app-definition';
import { createApp } from './create-app';

export { EXIT_CONFIG };

/**
 * Starts an app: settings first (a bad one stops the process with one line and status 78), then the Nest app,
 * then the port. SIGTERM and SIGINT drain in-flight requests and close connections; if that takes longer than
 * `SHUTDOWN_TIMEOUT_MS` the process exits anyway. Under the dev launcher the app also stops when the launcher dies.
 */
export async function bootstrap<C extends AppConfig>(definition: AppDefinition<C>): Promise<NestFastifyApplication> {
  let config: C;
  try {
    config = loadConfig(definition.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${definition.name}: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }

  const logger = new NestLogger('Bootstrap');
  let app: NestFastifyApplication;
  try {
    app = await createApp(definition, config);
  } catch (error) {
    process.stderr.write(`${definition.name}: failed to start: ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void stop(app, config, logger, signal));
  }
  if (process.send && process.env['RP_DEV_LAUNCHER'] === '1') {
    process.once('disconnect', () => void stop(app, config, logger, 'launcher gone'));
  }

  try {
    await app.listen(config.PORT, config.HOST);
  } catch (error) {
    process.stderr.write(`${definition.name}: cannot listen on ${config.HOST}:${config.PORT}: ${String(error)}\n`);
    process.exit(1);
  }
  logger.log({ config: describeConfig(config) }, `${definition.name} listening on ${config.HOST}:${config.PORT}`);
  return app;
}

let stopping = false;

async function stop(app: NestFastifyApplication, config: AppConfig, logger: NestLogger, reason: string) {
  if (stopping) return;
  stopping = true;
  logger.log(`stopping (${reason})`);
  const deadline = setTimeout(() => {
    logger.error(`still busy after ${config.SHUTDOWN_TIMEOUT_MS} ms, exiting`);
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  try {
    await app.close();
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'error while stopping');
    process.exit(1);
  }
}
