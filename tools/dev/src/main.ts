import { Launcher } from './launcher';

/**
 * `npm start`: Redis (yours, or one started here), then gateway, subscription, txb, notifications and agent from
 * source on embedded defaults, a banner once all answer /health/ready, and a clean stop on Ctrl-C.
 * The sandbox (tools/sandbox) starts first and every app is pointed at it.
 * Settings: GATEWAY_PORT, SUBSCRIPTION_PORT, TXB_PORT, NOTIFICATIONS_PORT, AGENT_PORT, SANDBOX_PORT, SANDBOX_TLS_PORT,
 * SANDBOX_SMTP_PORT, REDIS_URL, DEV_DATA_DIR,
 * DEV_READY_TIMEOUT_MS, DEV_LOG_FORMAT=json (raw app logs).
 */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const launcher = new Launcher({
    env: process.env,
    print,
    pretty: process.env['DEV_LOG_FORMAT'] !== 'json',
    // Colours only on a terminal (a file or a pipe gets plain text), and never with NO_COLOR set.
    colorize: process.stdout.isTTY === true && !process.env['NO_COLOR'],
  });
  const startedAt = Date.now();

  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string, code: number): Promise<void> =>
    (stopping ??= (async () => {
      print(`\nstopping everything (${reason})...`);
      await launcher.stop();
      print('stopped.');
      process.exit(code);
    })());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void shutdown(signal, 0));
  }

  try {
    await launcher.start();
  } catch (error) {
    print(`\nnpm start failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown('start failed', 1);
    return;
  }
  launcher.banner(startedAt).forEach(print);

  const ended = await launcher.firstExit();
  if (!stopping) await shutdown(`${ended.app} exited unexpectedly`, 1);
}

void main();
