import type { IncomingMessage, ServerResponse } from 'node:http';

/** Request body limit for the sandbox's JSON endpoints (the real RPC accepts about 512 KiB). */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class BadRequestError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export class BodyTooLargeError extends Error {}

/** Reads the whole body; past `limit` it keeps draining (so the client still gets the answer) and then rejects. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () =>
      size > limit ? reject(new BodyTooLargeError(`body over ${limit} bytes`)) : resolve(Buffer.concat(chunks)),
    );
    req.on('error', reject);
  });
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req).catch((error: unknown) => {
    throw error instanceof BodyTooLargeError ? new BadRequestError('request body too large', 413) : error;
  });
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadRequestError('body is not valid JSON');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
