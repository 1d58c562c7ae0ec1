import { type HttpRequest, headerOf } from '@rp/platform';

/** The URL the client called, as the gateway saw it (X-Forwarded-* from the proxy) or as it reached us. */
export function resourceUrl(req: HttpRequest): string {
  const proto = firstOf(headerOf(req.headers, 'x-forwarded-proto')) ?? req.protocol;
  const host = firstOf(headerOf(req.headers, 'x-forwarded-host')) ?? req.headers.host ?? 'localhost';
  return `${proto}://${host}${req.url.split('?')[0]}`;
}

function firstOf(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim() || undefined;
}
