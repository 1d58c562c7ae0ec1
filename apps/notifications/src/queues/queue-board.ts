import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { ApiError, REDIS_SETTINGS, type RedisSettings, bullConnection, headerOf, sendError } from '@rp/platform';
import { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret } from '../admin/secret-guards';
import { NotificationsSettings } from '../settings/notifications-settings';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { MONITOR_QUEUE } from '../monitor/monitor-job';

/** Where the queue dashboard lives: under the gateway's `/api/v1/rms` prefix, an admin route there (ADR 022). */
export const QUEUE_BOARD_PATH = '/api/v1/rms/notifications/queues';

/**
 * The admin key of a request to the board: the `x-admin-key` header (scripts, curl) or the password of HTTP Basic
 * authentication (a browser, which asks once and sends it with every page, script and API call of the board).
 */
function adminKeyOf(request: FastifyRequest): string | undefined {
  const header = headerOf(request.headers, 'x-admin-key');
  if (header !== undefined) return header;
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(headerOf(request.headers, 'authorization') ?? '');
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/**
 * The refusals, answered in the platform's error envelope from the hook itself: bull-board installs its own error
 * handler in its plugin, so nothing is thrown where that handler would answer it.
 */
function adminOnly(config: NotificationsSettings) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const expected = config.RMS_ADMIN_API_KEY;
    if (!expected) {
      sendError(
        new ApiError(503, 'ADMIN_NOT_CONFIGURED', 'Admin routes are not configured on this server'),
        request,
        reply,
      );
      return;
    }
    const given = adminKeyOf(request);
    if (given === undefined) {
      const challenge = { 'www-authenticate': 'Basic realm="notifications queues", charset="UTF-8"' };
      sendError(
        new ApiError(401, 'ADMIN_KEY_REQUIRED', 'The queue dashboard needs the admin key (x-admin-key or Basic auth)', {
          headers: challenge,
        }),
        request,
        reply,
      );
      return;
    }
    if (!sameSecret(given, expected)) {
      sendError(new ApiError(403, 'INVALID_ADMIN_KEY', 'x-admin-key is missing or wrong'), request, reply);
      return;
    }
    done();
  };
}

/**
 * bull-board for the delivery and monitor queues on the notifications API role, every route of it (pages, static
 * files, its JSON API) behind the admin key. The monitor's queue gets a producer connection of its own here: the
 * API role runs no scheduler.
 */
export async function registerQueueBoard(http: FastifyInstance, app: NestFastifyApplication): Promise<void> {
  const config = app.get(NotificationsSettings);
  if (!config.runs('api')) return;
  const settings = app.get<RedisSettings>(REDIS_SETTINGS);
  const monitor = new Queue(MONITOR_QUEUE, {
    connection: bullConnection(settings, 'notifications-board'),
    prefix: config.bullPrefix(),
  });
  monitor.on('error', () => undefined);
  http.addHook('onClose', async () => monitor.close());

  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(app.get(DeliveryQueue).queue), new BullMQAdapter(monitor)],
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Notifications queues' } },
  });
  const plugin = board.registerPlugin();
  await http.register(
    async (scope) => {
      scope.addHook('onRequest', adminOnly(config));
      // bull-board would answer every error of its routes itself (a malformed body as a 500 without the
      // envelope): its plugin sees a context whose setErrorHandler does nothing, so the platform's handler answers.
      await scope.register((inner, options, done) => {
        const withoutOwnErrorHandler = Object.create(inner, { setErrorHandler: { value: () => inner } });
        plugin(withoutOwnErrorHandler as FastifyInstance, options, done);
      });
    },
    { prefix: QUEUE_BOARD_PATH },
  );
}
