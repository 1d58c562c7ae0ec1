import type { SettlementReceipt } from '@rp/ledger';
import { PAYMENT_RESPONSE_HEADER, encodeX402Header } from '@rp/ledger';
import type { Request, Response } from 'express';

/** The URL the client called, as the gateway saw it (X-Forwarded-* from the proxy) or as it reached us. */
export function resourceUrl(req: Request): string {
  const proto = firstOf(req.get('x-forwarded-proto')) ?? req.protocol;
  const host = firstOf(req.get('x-forwarded-host')) ?? req.get('host') ?? 'localhost';
  return `${proto}://${host}${req.originalUrl.split('?')[0]}`;
}

/** Headers of a paid answer: the settlement receipt, and no caching of a body that holds a key. */
export function sendReceipt(res: Response, receipt: SettlementReceipt): void {
  res.setHeader(PAYMENT_RESPONSE_HEADER, encodeX402Header(receipt));
  res.setHeader('Cache-Control', 'no-store');
}

function firstOf(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim() || undefined;
}
