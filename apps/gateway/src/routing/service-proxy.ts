import { Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ErrorCode } from '@rp/contracts';
import {
  ApiError,
  INTERNAL_HEADERS,
  INTERNAL_IDENTITY_HEADER,
  callerIdentity,
  encodeCallerIdentity,
  requestIdOf,
  sendError,
  signInternalRequest,
} from '@rp/platform';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { GatewayConfig } from '../config/gateway.config';
import { ServiceRoute, routeFor, serviceRoutes } from './service-routes';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
]);

/**
 * Forwards `/api/v1/{keys,txb,rms}/**` to the owning service as a stream: method, headers, body, status and
 * chunked answers pass through unchanged, the request id travels in `x-request-id`, and the internal headers
 * (signed with `INTERNAL_TOKEN`) say who the caller is. A service that is down is answered for with 503, one that
 * stays silent past `UPSTREAM_TIMEOUT_MS` with 504, both in the error envelope; an answer cut off after it began is
 * cut off for the client too.
 */
@Injectable()
export class ServiceProxy implements OnApplicationShutdown {
  private readonly logger = new Logger(ServiceProxy.name);
  private readonly routes: ServiceRoute[];
  private readonly timedOut = new WeakSet<Request>();
  // A pooled connection idle for 30 s is dropped by us, well before the service's 65 s idle timeout, so the
  // gateway never reuses a connection the service is closing.
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });

  constructor(private readonly config: GatewayConfig) {
    this.routes = serviceRoutes(config);
  }

  onApplicationShutdown(): void {
    this.agent.destroy();
  }

  middleware(): RequestHandler {
    const proxy = createProxyMiddleware<Request, Response>({
      router: (req) => this.routeOf(req).target,
      changeOrigin: true,
      xfwd: true,
      // Connections to the services are reused: a new TCP connection per call doubled the gateway's cost.
      agent: this.agent,
      proxyTimeout: this.config.UPSTREAM_TIMEOUT_MS,
      on: {
        proxyReq: (proxyReq: ClientRequest, req: Request, res: Response) => {
          for (const name of INTERNAL_HEADERS) proxyReq.removeHeader(name);
          // Services trust the signed identity; the key itself stays at the edge.
          proxyReq.removeHeader('authorization');
          proxyReq.removeHeader('x-api-key');
          for (const [name, value] of Object.entries(this.internalHeaders(req))) proxyReq.setHeader(name, value);
          proxyReq.once('timeout', () => {
            this.timedOut.add(req);
            // The answer has begun: no envelope can follow, and a clean end would pass a truncated body as whole.
            if (res.headersSent) this.cutOff(req, res, 'stalled');
          });
        },
        proxyRes: (proxyRes: IncomingMessage, req: Request, res: Response) => {
          proxyRes.once('aborted', () => this.cutOff(req, res, 'broke off'));
        },
        error: (error: Error, req: Request, res: Response | Socket) => this.answerFailure(error, req, res),
      },
    });
    return (req: Request, res: Response, next: NextFunction) => {
      if (!routeFor(this.routes, req.path)) return next();
      return proxy(req, res, next);
    };
  }

  /**
   * The gateway's own internal headers (any client copy is removed first): signed with the token; without one
   * (development) the identity travels unsigned, as services without a token expect it.
   */
  private internalHeaders(req: Request): Record<string, string> {
    const identity = callerIdentity(req);
    const token = this.config.INTERNAL_TOKEN;
    if (token) {
      return signInternalRequest({
        token,
        method: req.method,
        // The path exactly as forwarded (the proxy sends `req.url`, query included), which the service checks.
        path: req.url,
        requestId: requestIdOf(req),
        identity,
      });
    }
    return identity ? { [INTERNAL_IDENTITY_HEADER]: encodeCallerIdentity(identity) } : {};
  }

  private cutOff(req: Request, res: Response, how: string): void {
    this.logger.warn(
      `${this.routeOf(req).service} ${how} while answering ${req.method} ${req.path}; cutting the client off`,
    );
    res.destroy();
  }

  private routeOf(req: Request): ServiceRoute {
    const route = routeFor(this.routes, req.path);
    if (!route) throw new Error(`no service owns ${req.path}`);
    return route;
  }

  private answerFailure(error: Error, req: Request, res: Response | Socket): void {
    const route = this.routeOf(req);
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!('status' in res)) {
      res.destroy();
      return;
    }
    if (this.timedOut.has(req)) {
      this.logger.warn(
        `${route.service} did not answer ${req.method} ${req.path} within ${this.config.UPSTREAM_TIMEOUT_MS} ms`,
      );
      sendError(
        new ApiError(504, ErrorCode.UPSTREAM_TIMEOUT, `The ${route.service} service did not answer in time`),
        req,
        res,
      );
      return;
    }
    this.logger.warn(`${route.service} unreachable for ${req.method} ${req.path}: ${code || error.message}`);
    const status = UNREACHABLE.has(code) || code === '' ? 503 : 502;
    sendError(
      new ApiError(
        status,
        status === 503 ? ErrorCode.SERVICE_UNAVAILABLE : ErrorCode.BAD_GATEWAY,
        `The ${route.service} service is unavailable`,
        { headers: status === 503 ? { 'Retry-After': '5' } : {} },
      ),
      req,
      res,
    );
  }
}
