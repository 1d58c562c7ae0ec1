import fastifyCompress from '@fastify/compress';
import { ErrorCode } from '@rp/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';

/** JSON nested deeper than this is refused before it is parsed or validated. */
export const MAX_JSON_DEPTH = 64;

/** The body is not JSON (or not UTF-8). Rendered as 400 `MALFORMED_JSON`. */
export class MalformedJsonError extends Error {
  override readonly name = 'MalformedJsonError';
  readonly code = 'RP_MALFORMED_JSON';
  readonly statusCode = 400;
}

/** A `Content-Encoding` the platform cannot decode. Rendered as 415. */
export class UnsupportedEncodingError extends Error {
  override readonly name = 'UnsupportedEncodingError';
  readonly code = 'RP_UNSUPPORTED_ENCODING';
  readonly statusCode = 415;
}

/**
 * What a body that fails to decompress (not the encoding it claims, truncated, trailing bytes, the client gone)
 * becomes: the library copies these fields onto the stream's error, which the body reader passes on. Rendered as
 * 400 `BAD_REQUEST`, as before the library read them.
 */
export const UNDECODABLE_BODY = { code: 'RP_UNDECODABLE_BODY', statusCode: 400 } as const;

/** The encodings request bodies may come in (`x-gzip` is read as `gzip`, names in any case). */
export const REQUEST_ENCODINGS = ['gzip', 'deflate', 'br'] as const;

/** `1mb` -> 1048576: the `BODY_LIMIT` notation (b, kb, mb; binary multiples, as body-parser read it). */
export function bodyLimitBytes(limit: string): number {
  const match = /^(\d+)(b|kb|mb)$/i.exec(limit.trim());
  if (!match) throw new Error(`body limit "${limit}" must look like 100kb or 1mb`);
  const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[match[2].toLowerCase() as 'b' | 'kb' | 'mb'];
  return Number(match[1]) * unit;
}

/**
 * Reads request bodies as JSON only: gzip, deflate and br bodies are decompressed on the way (the size limit
 * counts decompressed bytes, so a small bomb cannot inflate past it), any other content type is a 415. The parser
 * refuses, each with a 4xx and before any validation runs: bytes that are not UTF-8, text that is not JSON, nesting
 * deeper than `MAX_JSON_DEPTH`, and strings holding lone surrogates (not Unicode text; no database stores them).
 * An empty body reads as `{}`.
 */
export async function registerJsonBodies(fastify: FastifyInstance, bodyLimit: number): Promise<void> {
  fastify.removeAllContentTypeParsers();
  fastify.addHook('preParsing', settleContentEncoding);
  // Decompression is @fastify/compress's (a route-level preParsing step, after the app's own): each stream it starts
  // has its error heard, and the error reaches the body reader as a 400. Responses are not compressed here.
  await fastify.register(fastifyCompress, {
    global: false,
    globalDecompression: true,
    requestEncodings: [...REQUEST_ENCODINGS, 'identity'],
    onUnsupportedRequestEncoding: (encoding) =>
      new UnsupportedEncodingError(
        `Content-Encoding ${encoding.slice(0, 40)} is not supported (${REQUEST_ENCODINGS.join(', ')}, one at most)`,
      ),
    // A refusal raised inside the body's own pipeline (the signed-call body hash) keeps its answer; only a
    // decoder's failure becomes the undecodable-body 400 (the plugin copies the returned fields onto the error).
    onInvalidRequestPayload: (_encoding, _request, error) =>
      error instanceof ApiError ? error : (UNDECODABLE_BODY as unknown as Error),
  });
  const parseJsonText = fastify.getDefaultJsonParser('error', 'error');
  const parse = (
    request: FastifyRequest,
    body: Buffer | string,
    done: (error: Error | null, value?: unknown) => void,
  ) => {
    let text: string;
    try {
      text = utf8.decode(typeof body === 'string' ? Buffer.from(body) : body);
    } catch {
      done(new MalformedJsonError('Request body is not valid UTF-8'));
      return;
    }
    if (text.trim() === '') {
      done(null, {});
      return;
    }
    if (nestingDepth(text) > MAX_JSON_DEPTH) {
      done(new ApiError(400, ErrorCode.BAD_REQUEST, `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
      return;
    }
    parseJsonText(request, text, (error: Error | null, value?: unknown) => {
      if (error) {
        done(new MalformedJsonError('Request body is not valid JSON'));
        return;
      }
      const field = text.includes('\\u') ? malformedStringAt(value) : undefined;
      if (field !== undefined) {
        done(
          new ApiError(400, ErrorCode.VALIDATION_FAILED, `${field} must be well-formed Unicode text`, {
            details: [{ field, message: 'must be well-formed Unicode text' }],
          }),
        );
        return;
      }
      done(null, value);
    });
  };
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, parse);
  fastify.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'buffer', bodyLimit }, parse);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * `preParsing` hook, before the decompressor: says which `Content-Encoding` the body reader will undo. Only a body
 * Fastify will read with the JSON parser is decoded: on any other request (a GET's body, a body without a content
 * type, a content type refused with 415) the header is dropped, so no decompression stream is started for bytes
 * nobody reads (Node discards them once the answer is sent). The name is trimmed and lower-cased, `x-gzip` read as
 * `gzip`. Routes that pass the body on as it came (the gateway's forwarding) are left alone.
 */
function settleContentEncoding(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, stream?: never) => void,
): void {
  const header = request.headers['content-encoding'];
  // Most requests name no encoding: answered before the route's options are read (Fastify builds them per read).
  if (header === undefined || (request.routeOptions.config as { forwardBody?: boolean } | undefined)?.forwardBody) {
    done(null, payload as never);
    return;
  }
  if (!readsJsonBody(request)) {
    delete request.headers['content-encoding'];
  } else {
    const encoding = header.trim().toLowerCase();
    request.headers['content-encoding'] = encoding === 'x-gzip' ? 'gzip' : encoding;
  }
  done(null, payload as never);
}

/** Methods whose body Fastify never reads. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

const JSON_TYPE = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;|$)/i;

/** Whether Fastify will read this request's body with one of the JSON parsers (its handle-request rule). */
function readsJsonBody(request: FastifyRequest): boolean {
  if (BODYLESS.has(request.method)) return false;
  const { headers } = request;
  if (headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') return false;
  const type = headers['content-type'];
  return type !== undefined && JSON_TYPE.test(type.trim());
}

/** Deepest nesting of arrays and objects in JSON text, counted without parsing (strings skipped). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return deepest;
}

/** With the u flag a surrogate pair reads as one astral code point: only a lone surrogate is in category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The dotted path of the first key or string value that holds a lone surrogate, or `undefined`. */
export function malformedStringAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path || 'body' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (LONE_SURROGATE.test(key)) return at;
    const found = malformedStringAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
