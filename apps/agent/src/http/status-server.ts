import { timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

export interface StatusRoutes {
  /** Liveness: the process answers. */
  health(): unknown;
  /** Readiness: the database answers. */
  ready(): Promise<{ ok: boolean; body: unknown }>;
  status(): Promise<unknown>;
  metrics(): string;
}

/**
 * The agent's HTTP surface, on Node's own server (Nest and Fastify would cost more memory than the whole loop):
 * `GET /health` (also `/health/live`, as every app has it), `GET /health/ready`, and, with `Authorization: Bearer <STATUS_TOKEN>` when a token is set,
 * `GET /status` and `GET /metrics`. It listens only on `HOST`. Anything else is a 404 in the error envelope.
 */
export function createStatusServer(routes: StatusRoutes, statusToken: string | undefined): Server {
  const token = statusToken ? Buffer.from(`Bearer ${statusToken}`) : undefined;
  const authorized = (request: IncomingMessage): boolean => {
    if (!token) return true;
    const given = Buffer.from(request.headers.authorization ?? '');
    return given.length === token.length && timingSafeEqual(given, token);
  };
  return createServer((request, response) => {
    void handle(request, response).catch(() => send(response, 500, envelope(500, 'INTERNAL_ERROR', 'internal error')));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(response, 405, envelope(405, 'METHOD_NOT_ALLOWED', 'only GET is served'), { allow: 'GET, HEAD' });
    }
    switch (path) {
      case '/health':
      case '/health/live':
        return send(response, 200, routes.health());
      case '/health/ready': {
        const ready = await routes.ready();
        return send(response, ready.ok ? 200 : 503, ready.body);
      }
      case '/status':
        if (!authorized(request)) return unauthorized(response);
        return send(response, 200, await routes.status());
      case '/metrics':
        if (!authorized(request)) return unauthorized(response);
        response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' });
        response.end(routes.metrics());
        return;
      default:
        return send(response, 404, envelope(404, 'NOT_FOUND', `no route ${path}`));
    }
  }
}

function unauthorized(response: ServerResponse): void {
  send(response, 401, envelope(401, 'UNAUTHORIZED', 'a valid STATUS_TOKEN is required'), {
    'www-authenticate': 'Bearer',
  });
}

function envelope(status: number, code: string, error: string) {
  return { success: false, status, code, error };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}
