import { Injectable } from '@nestjs/common';
import { CallerIdentity } from '@rp/contracts';
import { ApiError, INTERNAL_HEADERS, attachCallerIdentity, labelRoute, requestIdOf, sendError } from '@rp/platform';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { apiKeyRequired, identityOf, invalidApiKey, presentedApiKey } from '../auth/api-key';
import { KeyIntrospectionClient } from '../auth/key-introspection.client';
import { GatewayConfig } from '../config/gateway.config';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { rateLimited, setRateLimitHeaders } from '../rate-limit/rate-limit-headers';
import { BucketLimits } from '../rate-limit/token-bucket';
import { ServiceRoute, routeFor, serviceRoutes } from '../routing/service-routes';
import { routeAccess } from './route-access';

/**
 * What stands between a client and a service, in order: classify the route; on keyed routes check the API key
 * (the identity is attached to the request for the proxy to sign); then take a token from the key's bucket, or
 * from the caller's per-IP bucket on keyless routes. Failed key attempts cost a token of the per-IP bucket, and a
 * key not known to be active is only looked up while that bucket has one: a brake on guessing keys.
 * Paths outside `/api/v1` (health, metrics, docs) pass untouched; `/api/v1` paths no service owns are limited per
 * IP and left to the gateway's 404.
 */
@Injectable()
export class AccessControl {
  private readonly routes: ServiceRoute[];
  private readonly perIp: BucketLimits;

  constructor(
    config: GatewayConfig,
    private readonly keys: KeyIntrospectionClient,
    private readonly limiter: RateLimiter,
  ) {
    this.routes = serviceRoutes(config);
    this.perIp = { capacity: config.PUBLIC_BURST, refillPerMinute: config.PUBLIC_RATE_LIMIT };
  }

  middleware(): RequestHandler {
    return async (req: Request, res: Response, next: NextFunction) => {
      // Only the gateway speaks for callers: whatever a client sends in these headers is dropped.
      for (const header of INTERNAL_HEADERS) delete req.headers[header];
      const access = routeAccess(req.method, req.path);
      if (!access) return next();
      const route = routeFor(this.routes, req.path);
      if (route) labelRoute(req, `${route.prefix}/*`);
      try {
        await (route && access === 'key' ? this.admitKey(req, res) : this.admitByIp(req, res));
      } catch (error) {
        sendError(error, req, res);
        return;
      }
      next();
    };
  }

  private async admitByIp(req: Request, res: Response): Promise<void> {
    const decision = await this.limiter.take(this.ipBucket(req), this.perIp);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) throw rateLimited(decision);
  }

  private async admitKey(req: Request, res: Response): Promise<void> {
    const presented = presentedApiKey(req.headers);
    if (presented.kind === 'missing') return this.refuseAttempt(req, res, apiKeyRequired());
    if (presented.kind === 'malformed') return this.refuseAttempt(req, res, invalidApiKey());
    if (!this.keys.knownActive(presented.apiKey)) {
      const look = await this.limiter.take(this.ipBucket(req), this.perIp, 0);
      if (!look.allowed) {
        setRateLimitHeaders(res, look);
        throw rateLimited(look);
      }
    }
    let identity: CallerIdentity;
    try {
      identity = identityOf(await this.keys.introspect(presented.apiKey, requestIdOf(req)));
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() === 401) return this.refuseAttempt(req, res, error);
      throw error;
    }
    attachCallerIdentity(req, identity);
    const decision = await this.limiter.take(`key:${identity.keyId}`, {
      capacity: identity.burst,
      refillPerMinute: identity.rateLimit,
    });
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) throw rateLimited(decision);
  }

  /** A failed key attempt costs the caller's IP a token; once that bucket is empty the answer is 429. */
  private async refuseAttempt(req: Request, res: Response, refusal: ApiError): Promise<never> {
    const decision = await this.limiter.take(this.ipBucket(req), this.perIp);
    setRateLimitHeaders(res, decision);
    throw decision.allowed ? refusal : rateLimited(decision);
  }

  private ipBucket(req: Request): string {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    return `ip:${ip.startsWith('::ffff:') ? ip.slice(7) : ip}`;
  }
}
