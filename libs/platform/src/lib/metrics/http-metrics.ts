import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Histogram, Registry } from 'prom-client';

/** Set by middleware that answers outside Nest's router (the gateway proxy) to name its route. */
export const METRICS_ROUTE = Symbol('rp:metrics-route');

type RoutedRequest = Request & { [METRICS_ROUTE]?: string };

/** Request duration by method, route template and status. Unknown paths share one label to bound cardinality. */
@Injectable()
export class HttpMetrics {
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>;

  constructor(registry: Registry) {
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests in seconds, by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const stop = this.duration.startTimer();
    res.once('finish', () => {
      stop({ method: req.method, route: routeOf(req as RoutedRequest), status_code: String(res.statusCode) });
    });
    next();
  };
}

export function labelRoute(req: Request, route: string): void {
  (req as RoutedRequest)[METRICS_ROUTE] = route;
}

/** Nest answers unknown paths from a catch-all route; those are not a route of ours. */
const CATCH_ALL_ROUTES = new Set(['/{*path}', '*', '/*']);

function routeOf(req: RoutedRequest): string {
  if (req[METRICS_ROUTE]) return req[METRICS_ROUTE];
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string' || CATCH_ALL_ROUTES.has(path)) return 'unmatched';
  return `${req.baseUrl}${path}`;
}
