import { randomUUID, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

export interface StatusRoutes {
  /** Liveness: the process answers. */
  health(): unknown;
  /** Readiness: the database answers. */
  ready(): Promise<{ ok: boolean; body: unknown }>;
  status(): Promise<unknown>;
  metrics(): string;
  /** Each answered request, for `http_request_duration_seconds`. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** Routes the agent serves; anything else is one label in the metrics (`unmatched`). */
const ROUTES = new Set(['/health', '/health/live', '/health/ready', '/status', '/metrics']);
const REQUEST_ID = /^[\w.:-]{1,128}$/;

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
    const started = process.hrtime.bigint();
    const given = request.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    response.setHeader('x-request-id', requestId);
    const path = (request.url ?? '/').split('?')[0];
    response.once('finish', () =>
      routes.observe(
        request.method ?? 'GET',
        ROUTES.has(path) ? path : 'unmatched',
        response.statusCode,
        Number(process.hrtime.bigint() - started) / 1e9,
      ),
    );
    void handle(request, response, path, requestId).catch(() =>
      send(response, 500, envelope(500, 'INTERNAL_ERROR', 'internal error', requestId)),
    );
  });

  async function handle(request: IncomingMessage, response: ServerResponse, path: string, requestId: string) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // No route takes a body: none is read, whatever it holds.
      request.resume();
      const refusal = envelope(405, 'METHOD_NOT_ALLOWED', `No route for ${request.method} ${path}: only GET is served`, requestId);
      return send(response, 405, refusal, { allow: 'GET, HEAD', connection: 'close' });
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
        if (!authorized(request)) return unauthorized(response, requestId);
        return send(response, 200, await routes.status());
      case '/metrics':
        if (!authorized(request)) return unauthorized(response, requestId);
        response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' });
        response.end(routes.metrics());
        return;
      default:
        return send(response, 404, envelope(404, 'NOT_FOUND', `No route for GET ${path}`, requestId));
    }
  }
}

function unauthorized(response: ServerResponse, requestId: string): void {
  send(response, 401, envelope(401, 'UNAUTHORIZED', 'a valid STATUS_TOKEN is required', requestId), {
    'www-authenticate': 'Bearer',
  });
}

function envelope(status: number, code: string, error: string, requestId: string) {
  return { success: false, status, code, error, requestId };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}
