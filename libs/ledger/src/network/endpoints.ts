import type { LedgerNetwork } from '@rp/contracts';

/** Where a service reaches the ledger: one primary RPC and the ones to fail over to, in order. */
export interface LedgerEndpoints {
  network: LedgerNetwork;
  rpcUrl: string;
  fallbackRpcUrls: string[];
}

/** A configured RPC URL that is not an absolute http(s) URL. The URL itself is left out: it may hold an API key. */
export class InvalidRpcUrlError extends Error {
  override readonly name = 'InvalidRpcUrlError';

  constructor(readonly position: number) {
    super(`RPC URL #${position + 1} is not an absolute http(s) URL`);
  }
}

/** Validates one RPC URL and returns it trimmed. */
export function parseRpcUrl(value: string, position = 0): string {
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new InvalidRpcUrlError(position);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidRpcUrlError(position);
  return trimmed;
}

/** `CONTRACT_RPC_FALLBACK_URLS`-style setting: comma-separated, blanks ignored, duplicates dropped, order kept. */
export function parseFallbackRpcUrls(value: string | undefined): string[] {
  if (!value) return [];
  const urls = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part, position) => parseRpcUrl(part, position));
  return [...new Set(urls)];
}
