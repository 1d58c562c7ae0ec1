import type { Request } from 'express';

/** The URL the client called, as the gateway saw it (X-Forwarded-* from the proxy) or as it reached us. */
export function resourceUrl(req: Request): string {
  const proto = firstOf(req.get('x-forwarded-proto')) ?? req.protocol;
  const host = firstOf(req.get('x-forwarded-host')) ?? req.get('host') ?? 'localhost';
  return `${proto}://${host}${req.originalUrl.split('?')[0]}`;
}

function firstOf(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim() || undefined;
}
