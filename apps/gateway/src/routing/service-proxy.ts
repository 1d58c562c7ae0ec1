import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type CallerIdentity, ErrorCode } from '@rp/contracts';
import {
  ApiError,
  INTERNAL_HEADERS,
  INTERNAL_IDENTITY_HEADER,
  type HttpReply,
  type HttpRequest,
  callerIdentity,
  encodeCallerIdentity,
  writeInternalSignature,
} from '@rp/platform';
import { type Dispatcher, Pool } from 'undici';
import { GatewayConfig } from '../config/gateway.config';
import { type AnswerEvents, type AnswerTarget, ForwardedAnswer, replyTarget } from './forwarded-answer';
import { forwardedHeaders, hopOf } from './forwarded-headers';
import { ServiceRoute, routeFor, serviceRoutes } from './service-routes';

/** Names only the gateway may set: any copy a client sends is dropped before forwarding. */
export const CLIENT_COPIES_DROPPED: ReadonlySet<string> = new Set(INTERNAL_HEADERS);

const serviceLogger = new Logger('ServiceProxy');

/** Connection errors that mean the service is not there (down, restarting, unresolvable): 503, retry later. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * Forwards `/api/v1/{keys,txb,rms}/**` to the owning service over a keep-alive undici pool per service: method,
 * path, query, headers (hop-by-hop ones removed) and the body's exact bytes (read whole, within `BODY_LIMIT`, so
 * their hash can be signed); status, headers and body of the answer stream back. The request id travels in
 * `x-request-id`, and the internal headers (signed with `INTERNAL_TOKEN`: identity, body hash, one-time nonce) say
 * who the caller is; the API key itself stays at the edge. A service that is down is answered for with 503, one
 * that stays silent past `UPSTREAM_TIMEOUT_MS` with 504, both in the error envelope; an answer that stalls or
 * breaks off after it began is cut off for the client too, so a truncated body is never passed as whole.
 */
@Injectable()
export class ServiceProxy implements OnApplicationShutdown {
  private readonly logger = serviceLogger;
  private readonly routes: ServiceRoute[];
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly config: GatewayConfig) {
    this.routes = serviceRoutes(config);
    for (const route of this.routes) {
      this.pools.set(
        route.service,
        new Pool(route.target, {
          connections: 256,
          // Idle connections are dropped by us after 30 s, well before the service's 65 s idle timeout, so the
          // gateway never reuses a connection the service is closing.
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 30_000,
          headersTimeout: config.UPSTREAM_TIMEOUT_MS,
          bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
          connectTimeout: 5_000,
        }),
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }

  /** The route owning `path`, matching whole segments. */
  routeOf(path: string): ServiceRoute | undefined {
    return routeFor(this.routes, path);
  }

  /** Route handler of the forwarding routes: resolves once the answer is with the client (or it was cut off). */
  readonly forward = (request: HttpRequest, reply: HttpReply): Promise<void> => {
    const query = request.url.indexOf('?');
    const route = this.routeOf(query < 0 ? request.url : request.url.slice(0, query));
    if (!route) return Promise.reject(new Error(`no service owns ${request.url}`));
    const body = forwardedBody(request);
    const headers = forwardedHeaders(request.headers, hopOf(request), CLIENT_COPIES_DROPPED);
    this.addInternalHeaders(headers, request.method, request.url, request.id, callerIdentity(request), body);
    return new Promise<void>((resolve, reject) => {
      this.dispatch(route, request.method, request.url, request.id, headers, body, replyTarget(reply), {
        failed: reject,
        finished: resolve,
      });
    });
  };

  /**
   * Sends one call to `route`'s service and carries its answer to `target`. `failed` gets the error to answer
   * with when the service could not be asked or gave no answer (nothing was written to the client then).
   */
  dispatch(
    route: ServiceRoute,
    method: string,
    url: string,
    requestId: string,
    headers: Record<string, string | string[]>,
    body: Buffer | undefined,
    target: AnswerTarget,
    events: { failed(error: ApiError): void; finished(): void },
  ): void {
    const pool = this.pools.get(route.service) as Pool;
    const answer = new ForwardedAnswer(target, new ServiceCall(this, route, method, url, requestId, events));
    pool.dispatch({ method: method as Dispatcher.HttpMethod, path: url, headers, body }, answer);
  }

  /**
   * Adds the gateway's own internal headers to `headers` (from which any client copy was removed): signed with the
   * token; without one (development) the identity travels unsigned, as services without a token expect it.
   */
  addInternalHeaders(
    headers: Record<string, string | string[]>,
    method: string,
    url: string,
    requestId: string,
    identity: CallerIdentity | undefined,
    body: Buffer | undefined,
  ): void {
    const token = this.config.INTERNAL_TOKEN;
    if (token) {
      writeInternalSignature(headers, {
        token,
        method,
        // The path exactly as forwarded, query included, which the service checks.
        path: url,
        requestId,
        identity,
        // The exact bytes forwarded: the service hashes what arrives and refuses any other body.
        body,
      });
    } else if (identity) {
      headers[INTERNAL_IDENTITY_HEADER] = encodeCallerIdentity(identity);
    }
  }

  /** What a call that got no answer is answered with (503, 504 or 502), logged once. */
  failure(error: unknown, requestId: string, method: string, url: string, route: ServiceRoute): ApiError {
    const code = (error as { code?: string }).code ?? '';
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      this.logger.warn(
        { requestId },
        `${route.service} did not answer ${method} ${url} within ${this.config.UPSTREAM_TIMEOUT_MS} ms`,
      );
      return new ApiError(504, ErrorCode.UPSTREAM_TIMEOUT, `The ${route.service} service did not answer in time`);
    }
    this.logger.warn(
      { requestId },
      `${route.service} unreachable for ${method} ${url}: ${code || (error as Error).message}`,
    );
    if (UNREACHABLE.has(code)) {
      return new ApiError(503, ErrorCode.SERVICE_UNAVAILABLE, `The ${route.service} service is unavailable`, {
        headers: { 'Retry-After': '5' },
      });
    }
    return new ApiError(502, ErrorCode.BAD_GATEWAY, `The ${route.service} service is unavailable`);
  }
}

/** One call to a service as its answer reports on it: a failure becomes the error to answer with. */
class ServiceCall implements AnswerEvents {
  constructor(
    private readonly proxy: ServiceProxy,
    private readonly route: ServiceRoute,
    private readonly method: string,
    private readonly url: string,
    private readonly requestId: string,
    private readonly events: { failed(error: ApiError): void; finished(): void },
  ) {}

  failed(error: Error): void {
    this.events.failed(this.proxy.failure(error, this.requestId, this.method, this.url, this.route));
  }

  finished(): void {
    this.events.finished();
  }

  brokeOff(how: 'stalled' | 'broke off'): void {
    serviceLogger.warn(
      { requestId: this.requestId },
      `${this.route.service} ${how} while answering ${this.method} ${this.url}; cutting the client off`,
    );
  }
}

/**
 * The body to forward: the bytes the forwarding routes' parser read, exactly as they came (compressed or not).
 * Fastify reads no body for GET and HEAD, and services never read one there either: none is forwarded.
 */
function forwardedBody(request: HttpRequest): Buffer | undefined {
  return Buffer.isBuffer(request.body) && request.body.length > 0 ? request.body : undefined;
}
