import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReceivedFile } from './message-log';

export { BodyTooLargeError, readBody } from '../server/http-io';

export class BodySyntaxError extends Error {}

/** Splits the router's path into path and query; the query may instead live only in `req.url`. */
export function splitPath(req: IncomingMessage, path: string): { path: string; query: URLSearchParams } {
  const at = path.indexOf('?');
  const pathOnly = at >= 0 ? path.slice(0, at) : path;
  const query = at >= 0 ? path.slice(at + 1) : ((req.url ?? '').split('?')[1] ?? '');
  return { path: pathOnly, query: new URLSearchParams(query) };
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

export function parseJsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new BodySyntaxError(error instanceof Error ? error.message : String(error));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BodySyntaxError('not an object');
  return value as Record<string, unknown>;
}

export function parseForm(body: Buffer): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
}

/** A multipart/form-data body: its text fields, and its file parts as received, byte for byte. */
export interface MultipartForm {
  fields: Record<string, string>;
  files: (ReceivedFile & { bytes: Buffer })[];
}

/**
 * Parses a multipart/form-data body with the runtime's own parser (`Response.formData()`, undici), which keeps file
 * parts as bytes: a binary file arrives as it was sent. A body it cannot parse (no boundary, broken parts) is a
 * `BodySyntaxError`.
 */
export async function parseMultipart(req: IncomingMessage, body: Buffer): Promise<MultipartForm> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  } catch (error) {
    throw new BodySyntaxError(error instanceof Error ? error.message : String(error));
  }
  const fields: Record<string, string> = {};
  const files: MultipartForm['files'] = [];
  for (const [field, value] of form) {
    if (typeof value === 'string') {
      fields[field] = value;
      continue;
    }
    const bytes = Buffer.from(await value.arrayBuffer());
    files.push({
      field,
      filename: value.name,
      contentType: value.type,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes,
    });
  }
  return { fields, files };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Remaining count of an injected fault; deletes it once used up. */
export function takeFault<K, F extends { count: number }>(faults: Map<K, F>, ...keys: K[]): F | undefined {
  for (const key of keys) {
    const fault = faults.get(key);
    if (!fault) continue;
    fault.count -= 1;
    if (fault.count <= 0) faults.delete(key);
    return fault;
  }
  return undefined;
}
