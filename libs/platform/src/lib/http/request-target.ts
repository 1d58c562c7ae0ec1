import { ErrorCode } from '@rp/contracts';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../errors/api-error';

/** The longest request target (path and query) any app reads; longer ones are a 414. */
export const MAX_REQUEST_TARGET_LENGTH = 4096;

/** Characters a path escapes only to disguise itself: unreserved ones (RFC 3986 §2.3), `/`, `\`, and controls. */
const DISGUISED = /[A-Za-z0-9\-._~/\\]/;
const HEX = /^[0-9A-Fa-f]{2}$/;

function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f;
}

/** Whether the path holds what no path holds as it is: controls, space, backslash, `#`, anything not ASCII. */
function holdsUnwritable(path: string): boolean {
  for (let i = 0; i < path.length; i += 1) {
    const code = path.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f || code === 0x5c || code === 0x23) return true;
  }
  return false;
}

/**
 * Why a request target is refused, or `undefined` when it is the one form every app routes and classifies the same
 * way as it is written (RFC 9112 origin-form, canonical): it starts with a single `/`; its path has no empty, `.` or
 * `..` segment (written or escaped), no backslash, control byte, space, `#` or non-ASCII byte, no `%` that is not
 * followed by two hex digits, and no escape of a character that needs none (`%61` for `a`), of `/`, `\` or a
 * control byte. Such a path means one route however it is decoded: the gateway's classification (which route, which
 * access rule) sees what the router and the service see. Absolute-form (`GET http://host/path`), authority-form and
 * asterisk-form targets are refused too: a client talks to the platform in origin-form.
 */
export function requestTargetProblem(target: string): string | undefined {
  if (target.length > MAX_REQUEST_TARGET_LENGTH) return `is longer than ${MAX_REQUEST_TARGET_LENGTH} characters`;
  if (!target.startsWith('/')) return 'must be a path starting with "/" (origin-form)';
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  if (holdsUnwritable(path)) return 'holds a character a path cannot hold as it is';
  for (let i = path.indexOf('%'); i >= 0; i = path.indexOf('%', i + 1)) {
    const hex = path.slice(i + 1, i + 3);
    if (!HEX.test(hex)) return 'holds a "%" that is not a percent-escape';
    const code = parseInt(hex, 16);
    if (isControl(code) || DISGUISED.test(String.fromCharCode(code)))
      return `escapes a character that needs no escape (%${hex})`;
  }
  // Leading and inner empty segments; a trailing slash is routed as none (ignoreTrailingSlash).
  const segments = path.split('/').slice(1);
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i];
    if (segment === '' && i < segments.length - 1) return 'has an empty segment ("//")';
    if (segment === '.' || segment === '..') return 'has a "." or ".." segment';
  }
  return undefined;
}

/**
 * `onRequest` hook of every app, first after the request id: a target that is not canonical origin-form is a 400
 * (414 when too long) in the envelope, before any check, body or route sees it.
 */
export function refuseOddRequestTargets(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const target = request.raw.url ?? '';
  const problem = requestTargetProblem(target);
  if (problem === undefined) {
    done();
    return;
  }
  const status = target.length > MAX_REQUEST_TARGET_LENGTH ? 414 : 400;
  done(
    new ApiError(status, ErrorCode.BAD_REQUEST, `The request target ${problem}`, {
      details: [{ field: 'path', message: problem }],
    }),
  );
}
