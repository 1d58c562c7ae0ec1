import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import {
  type ApiError,
  HttpMetrics,
  REQUEST_ID_HEADER,
  isDraining,
  logAccess,
  renderError,
  requestIdOfIncoming,
  requestTargetProblem,
} from '@rp/platform';
import type { FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { AccessControl, type HeldAdmission } from '../access/access-control';
import { writeRateLimitHeaders } from '../rate-limit/rate-limit-headers';
import type { AnswerTarget } from './forwarded-answer';
import { type IncomingHop, forwardedHeaders } from './forwarded-headers';
import { CLIENT_COPIES_DROPPED, ServiceProxy } from './service-proxy';
import type { ServiceRoute } from './service-routes';

/** As the error envelope filter logs what it did not expect. */
const errorLogger = new Logger('ErrorEnvelope');

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface FastPathOptions {
  proxy: ServiceProxy;
  access: AccessControl;
  metrics: HttpMetrics;
  registry: Registry;
  logger: PinoLogger;
  /** `TRUST_PROXY`: how many proxies in front of the gateway are believed (`X-Forwarded-Proto`, `-Host`). */
  trustedProxies: number;
}

/**
 * The gateway's common call, forwarded without Fastify: a `GET` with no body under a service's prefix, on a keyed
 * route, whose API key's active answer is cached and whose bucket's lease on this replica holds a token. Such a call
 * needs nothing that waits (no lookup, no Redis), so it is decided in one synchronous step in front of Fastify's
 * request handler and sent to the service as the forwarding route would send it: the same checks, the same signed
 * internal headers, the same answer, access line and duration metric. Every other request, and every request this
 * path is not sure of (a body or a body header, a target that is not canonical, another method or access class, no
 * key, a key not cached, an empty lease, a server closing), goes to Fastify untouched, with nothing taken or
 * counted, and is decided there as before. So the fast path admits a subset of what the forwarding routes admit, and
 * refuses nothing itself: every refusal (400, 401, 429, 413, ...) is Fastify's. Fastify builds a request and a reply
 * object and runs some ten hooks per call; this path builds neither.
 */
export class FastPath {
  private readonly routeLabels = new Map<ServiceRoute, string>();
  /** Calls forwarded here, counted in a plain number per call and added to the counter at a scrape. */
  private readonly counted = { forwarded: 0 };

  constructor(private readonly options: FastPathOptions) {
    const counted = this.counted;
    new Counter({
      name: 'gateway_fast_path_total',
      help: 'Calls forwarded on the fast path (cached key, token in the lease), outside Fastify',
      registers: [options.registry],
      collect() {
        this.inc(counted.forwarded);
        counted.forwarded = 0;
      },
    });
  }

  /** Puts the fast path in front of the server's request handler (Fastify's), which gets every other request. */
  install(http: FastifyInstance): void {
    const server: Server = http.server;
    const handlers = server.listeners('request') as RequestListener[];
    if (handlers.length !== 1) throw new Error(`expected one request handler, found ${handlers.length}`);
    const [fastify] = handlers;
    server.removeListener('request', fastify);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      let forwarded = false;
      try {
        forwarded = this.forward(req, res, http);
      } catch {
        // Nothing was taken before the admission, and what follows it answers its own errors: Fastify decides.
      }
      if (!forwarded) fastify.call(server, req, res);
    });
  }

  /** Forwards `req` and returns true, or returns false having touched nothing (Fastify then serves it). */
  forward(req: IncomingMessage, res: ServerResponse, http: FastifyInstance): boolean {
    const startedAt = performance.now();
    const headers = req.headers;
    if (
      req.method !== 'GET' ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers['content-encoding'] !== undefined
    ) {
      return false;
    }
    const url = req.url ?? '';
    if (requestTargetProblem(url) !== undefined) return false;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const route = this.options.proxy.routeOf(path);
    if (!route || isDraining(http)) return false;
    const admission = this.options.access.admitHeld('GET', path, headers);
    if (!admission) return false;
    // Admitted: a token is taken, and the call is this path's to answer from here on.
    this.counted.forwarded += 1;
    this.send(req, res, route, url, admission, http, startedAt);
    return true;
  }

  private send(
    req: IncomingMessage,
    res: ServerResponse,
    route: ServiceRoute,
    url: string,
    admission: HeldAdmission,
    http: FastifyInstance,
    startedAt: number,
  ): void {
    const call = new FastPathCall(this, req, res, route, url, http, startedAt);
    try {
      call.requestId = requestIdOfIncoming(req);
      call.own = ownHeaders(call.requestId, admission.decision);
      call.awaitAnswer();
      const headers = forwardedHeaders(req.headers, this.hopOf(req), CLIENT_COPIES_DROPPED);
      this.options.proxy.addInternalHeaders(headers, 'GET', url, call.requestId, admission.identity, undefined);
      this.options.proxy.dispatch(route, 'GET', url, call.requestId, headers, undefined, call, call);
    } catch (error) {
      call.failed(error);
    }
  }

  /** What Fastify's hooks do once the answer is out (`onResponse`): the access line and the duration metric. */
  answered(call: FastPathCall): void {
    const elapsedMs = performance.now() - call.startedAt;
    const { req, res, url, requestId } = call;
    logAccess(this.options.logger, requestId, 'GET', url, req.headers['user-agent'], res.statusCode, elapsedMs);
    this.options.metrics.record('GET', res.statusCode, this.metricsRoute(call.route), elapsedMs / 1000);
  }

  /** The forwarding routes' metrics label (`metricsRoute`): the prefix with `/*`, whether or not a path follows. */
  private metricsRoute(route: ServiceRoute): string {
    let label = this.routeLabels.get(route);
    if (label === undefined) {
      label = `${route.prefix}/*`;
      this.routeLabels.set(route, label);
    }
    return label;
  }

  /**
   * The hop as Fastify's request reads it with `trustProxy` set to the hop count: the last `X-Forwarded-Proto` and
   * `X-Forwarded-Host` entries when a proxy is trusted, else the socket's protocol and the `Host` header.
   */
  private hopOf(req: IncomingMessage): IncomingHop {
    const socket = req.socket;
    const trusted = this.options.trustedProxies > 0;
    const forwardedProto = req.headers['x-forwarded-proto'];
    const forwardedHost = req.headers['x-forwarded-host'];
    return {
      peer: socket.remoteAddress ?? 'unknown',
      protocol:
        trusted && typeof forwardedProto === 'string' && forwardedProto !== ''
          ? lastEntry(forwardedProto)
          : (socket as { encrypted?: boolean }).encrypted
            ? 'https'
            : 'http',
      host:
        trusted && typeof forwardedHost === 'string' && forwardedHost !== ''
          ? lastEntry(forwardedHost)
          : (req.headers.host ?? ''),
    };
  }
}

const CALL = Symbol('fast path call');
type CalledResponse = ServerResponse & { [CALL]?: FastPathCall };

/** `finish` listener of every fast-path response, one function for all: the call it finishes hangs on the response. */
function onAnswered(this: CalledResponse): void {
  const call = this[CALL];
  if (call) call.path.answered(call);
}

/**
 * One call on the fast path: where its answer goes (the client's response, and the gateway's own headers of it) and
 * what becomes of a failure, as one object per call instead of a closure for each.
 */
class FastPathCall implements AnswerTarget {
  requestId = '';
  own: OutgoingHttpHeaders = {};

  constructor(
    readonly path: FastPath,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly route: ServiceRoute,
    readonly url: string,
    private readonly http: FastifyInstance,
    readonly startedAt: number,
  ) {}

  /** Once the answer is out, the access line and the metric (`FastPath.answered`). */
  awaitAnswer(): void {
    (this.res as CalledResponse)[CALL] = this;
    this.res.on('finish', onAnswered);
  }

  takeOver(): void {
    // Nothing to do: the fast path owns the response from the start.
  }

  ownHeaders(): OutgoingHttpHeaders {
    return this.own;
  }

  draining(): boolean {
    return isDraining(this.http);
  }

  failed(error: ApiError | unknown): void {
    answerError(this.res, error, this.requestId, this.own, this.http);
  }

  finished(): void {
    // The access line and the metric are written on `finish`, which a cut-off answer never reaches either.
  }
}

/** The gateway's own headers of a forwarded answer: the request id and the call's `RateLimit-*`. */
function ownHeaders(requestId: string, decision: HeldAdmission['decision']): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { [REQUEST_ID_HEADER]: requestId };
  writeRateLimitHeaders(headers, decision);
  return headers;
}

/** The last entry of a header a proxy may have appended to (Fastify's reading of `X-Forwarded-*`). */
function lastEntry(value: string): string {
  const last = value.lastIndexOf(',');
  return last === -1 ? value.trim() : value.slice(last + 1).trim();
}

/** The error envelope, as the forwarding route's error handler writes it, with the headers the call had so far. */
function answerError(
  res: ServerResponse,
  error: ApiError | unknown,
  requestId: string,
  own: OutgoingHttpHeaders,
  http: FastifyInstance,
): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const rendered = renderError(error, requestId);
  if (rendered.unexpected) errorLogger.error({ err: error, requestId }, 'unexpected error');
  const body = JSON.stringify(rendered.body);
  const headers: OutgoingHttpHeaders = { ...own };
  for (const name in rendered.headers) headers[name.toLowerCase()] = rendered.headers[name];
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = Buffer.byteLength(body);
  if (isDraining(http)) headers['connection'] = 'close';
  res.writeHead(rendered.status, headers).end(body);
}
