import { Transform, type TransformCallback } from 'node:stream';
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { ErrorCode } from '@rp/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Counter } from 'prom-client';
import { ApiError } from '../errors/api-error';
import { attachCallerIdentity } from './caller';
import {
  EMPTY_BODY_SHA256,
  INTERNAL_IDENTITY_HEADER,
  decodeCallerIdentity,
  verifyInternalRequest,
} from './internal-signature';
import type { NonceStore } from './nonce-store';

const logger = new Logger('InternalAuth');

/** Why a call was refused, as the `internal_auth_refused_total{reason}` label: a few fixed values. */
export type InternalAuthRefusal = 'unsigned' | 'bad-signature' | 'replayed' | 'body-mismatch';

/** Probes and scrapers reach a service directly; they carry no signature and learn nothing about a caller. */
export function isUnsignedPath(path: string): boolean {
  return path === '/health' || path.startsWith('/health/') || path === '/metrics';
}

export interface InternalAuthOptions {
  /** `INTERNAL_TOKEN`; unset (development): identity headers are taken as they come and nothing else is checked. */
  token?: string;
  /** Where accepted nonces are remembered (Redis when the app has it, else in process). */
  nonces: NonceStore;
  /** Counts refusals by reason. */
  refusals?: Counter<'reason'>;
}

/** The Fastify hooks that check the gateway's signature; `createApp` installs them in this order. */
export interface InternalAuthHooks {
  /** Before any body is read: signature, clock window, one-time nonce; attaches the signed identity. */
  onRequest(request: FastifyRequest): Promise<void>;
  /** Hashes the body bytes exactly as they arrive (before any decompression) and refuses a mismatch. */
  preParsing(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: Readable,
    done: (error: Error | null, stream?: Readable) => void,
  ): void;
  /** A body that was never read (GET, no body) must be the empty body the gateway signed. */
  preValidation(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void;
}

const BODY_CHECK = Symbol('rp:internal-body-check');

interface BodyCheck {
  expected: string;
  /** Set once the whole body went through the hash and matched. */
  verified: boolean;
}

type RequestWithBodyCheck = FastifyRequest & { [BODY_CHECK]?: BodyCheck };

/**
 * With a token, every call but health and metrics must carry the gateway's v2 signature (timestamp in the clock
 * window, a nonce never seen before, the body's hash): else 403 `INTERNAL_AUTH_REQUIRED`, the same answer whatever
 * the reason (the reason is logged at debug and counted). Without a token (development), an `x-rp-identity` header
 * is taken as it comes.
 */
export function internalAuthHooks(options: InternalAuthOptions): InternalAuthHooks {
  const { token, nonces, refusals } = options;
  const refuse = (request: FastifyRequest, reason: InternalAuthRefusal, detail: string): ApiError => {
    refusals?.inc({ reason });
    logger.debug(`refused ${request.method} ${request.url.split('?')[0]}: ${detail}`);
    return new ApiError(
      403,
      ErrorCode.INTERNAL_AUTH_REQUIRED,
      'This service answers only calls forwarded by the gateway',
    );
  };

  return {
    async onRequest(request) {
      if (isUnsignedPath(request.url.split('?')[0])) return;
      if (!token) {
        const header = request.headers[INTERNAL_IDENTITY_HEADER];
        const identity = typeof header === 'string' ? decodeCallerIdentity(header) : undefined;
        if (identity) attachCallerIdentity(request, identity);
        return;
      }
      const verified = verifyInternalRequest(token, {
        method: request.method,
        path: request.url,
        headers: request.headers,
      });
      if (!verified.ok) {
        throw refuse(request, verified.reason === 'not signed' ? 'unsigned' : 'bad-signature', verified.reason);
      }
      const claim = await nonces.claim(verified.nonce, verified.validUntil);
      if (claim === 'replayed') throw refuse(request, 'replayed', 'nonce already used');
      (request as RequestWithBodyCheck)[BODY_CHECK] = { expected: verified.bodySha256, verified: false };
      if (verified.identity) attachCallerIdentity(request, verified.identity);
    },

    preParsing(request, _reply, payload, done) {
      const check = (request as RequestWithBodyCheck)[BODY_CHECK];
      // A body Fastify will not read is checked in preValidation: piping it here would read it for nobody.
      if (!check || !readsBody(request)) {
        done(null, payload);
        return;
      }
      const hashed = new BodyHashCheck(check, () =>
        refuse(request, 'body-mismatch', 'body does not match its signed hash'),
      );
      payload.on('error', (error) => hashed.destroy(error));
      // The body reader listens for errors; this keeps a stream nobody reads after all from crashing the process.
      hashed.on('error', () => undefined);
      done(null, payload.pipe(hashed));
    },

    preValidation(request, _reply, done) {
      const check = (request as RequestWithBodyCheck)[BODY_CHECK];
      if (!check || check.verified || check.expected === EMPTY_BODY_SHA256) {
        done();
        return;
      }
      done(refuse(request, 'body-mismatch', 'a body was signed but none was read'));
    },
  };
}

/** Methods whose body Fastify never reads. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/** Whether Fastify will read this request's body (its handle-request rule): else the body must be empty. */
function readsBody(request: FastifyRequest): boolean {
  if (BODYLESS.has(request.method)) return false;
  const { headers } = request;
  const empty =
    headers['transfer-encoding'] === undefined &&
    (headers['content-length'] === undefined || headers['content-length'] === '0');
  return !(empty && headers['content-type'] === undefined);
}

/** Passes the body through unchanged while hashing it; at its end, a hash other than the signed one is an error. */
class BodyHashCheck extends Transform {
  private readonly hash: Hash = createHash('sha256');

  constructor(
    private readonly check: BodyCheck,
    private readonly mismatch: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.hash.digest('hex') !== this.check.expected) {
      callback(this.mismatch());
      return;
    }
    this.check.verified = true;
    callback();
  }
}
