import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import { DurationHistogram, type DurationSeries } from './duration-histogram';

/**
 * Route options `config.metricsRoute`: the label for routes registered outside Nest whose template is not the
 * route people think of (the gateway's forwarded prefixes are `/api/v1/keys/*` whether or not a path follows).
 */
export interface MetricsRouteConfig {
  metricsRoute?: string;
}

/** The bounds of `http_request_duration_seconds`, in seconds. */
export const HTTP_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Request duration by method, route template and status. Unknown paths share one label to bound cardinality. */
@Injectable()
export class HttpMetrics {
  private readonly duration: DurationHistogram;

  constructor(registry: Registry) {
    this.duration = new DurationHistogram(
      'http_request_duration_seconds',
      'Duration of HTTP requests in seconds, by method, route template and status code',
      ['method', 'route', 'status_code'],
      HTTP_DURATION_BUCKETS,
      registry,
    );
  }

  /**
   * The histogram's child per label set (route, then method, then status), so an observation neither rebuilds nor
   * hashes a label key: three lookups of strings and a number the request already has.
   */
  private readonly children = new Map<string, Map<string, Map<number, DurationSeries>>>();
  private childCount = 0;

  /** `onResponse` hook: Fastify has timed the request already (`reply.elapsedTime`). */
  readonly observe = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    this.record(request.method, reply.statusCode, routeOf(request), reply.elapsedTime / 1000);
    done();
  };

  /** One answered request (the hook's, and the gateway's for the requests it forwards outside Fastify). */
  record(method: string, statusCode: number, route: string, seconds: number): void {
    const child = this.children.get(route)?.get(method)?.get(statusCode) ?? this.child(method, statusCode, route);
    child.observe(seconds);
  }

  private child(method: string, statusCode: number, route: string): DurationSeries {
    const child = this.duration.labels({ method, route, status_code: String(statusCode) });
    // Routes are templates and statuses few, but a bound keeps a surprise from growing without end.
    if (this.childCount < 1000) {
      let byMethod = this.children.get(route);
      if (!byMethod) this.children.set(route, (byMethod = new Map()));
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      byStatus.set(statusCode, child);
      this.childCount += 1;
    }
    return child;
  }
}

function routeOf(request: FastifyRequest): string {
  const options = request.routeOptions;
  const labelled = (options.config as MetricsRouteConfig | undefined)?.metricsRoute;
  if (labelled) return labelled;
  // Requests no route matched are answered by the not-found handler, which has no URL template.
  return options.url ?? 'unmatched';
}
