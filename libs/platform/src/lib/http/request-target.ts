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

/** Whether `target[0, end)` holds what no path holds as it is: controls, space, backslash, `#`, anything not ASCII. */
function holdsUnwritable(target: string, end: number): boolean {
  for (let i = 0; i < end; i += 1) {
    const code = target.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f || code === 0x5c || code === 0x23) return true;
  }
  return false;
}

const DOT = 0x2e;

/**
 * What is wrong with the segments of the path `target[0, end)` (which starts with `/`), read in order without
 * splitting it: an empty segment before the last (a trailing slash is routed as none), or a `.` or `..` segment.
 */
function segmentProblem(target: string, end: number): string | undefined {
  let start = 1;
  while (start <= end) {
    let stop = target.indexOf('/', start);
    if (stop < 0 || stop > end) stop = end;
    const length = stop - start;
    if (length === 0 && stop < end) return 'has an empty segment ("//")';
    if (
      (length === 1 && target.charCodeAt(start) === DOT) ||
      (length === 2 && target.charCodeAt(start) === DOT && target.charCodeAt(start + 1) === DOT)
    ) {
      return 'has a "." or ".." segment';
    }
    start = stop + 1;
  }
  return undefined;
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
  // The path is `target[0, end)`: read in place, no copy of it per request.
  const end = query < 0 ? target.length : query;
  if (holdsUnwritable(target, end)) return 'holds a character a path cannot hold as it is';
  for (let i = target.indexOf('%'); i >= 0 && i < end; i = target.indexOf('%', i + 1)) {
    const hex = target.slice(i + 1, Math.min(i + 3, end));
    if (!HEX.test(hex)) return 'holds a "%" that is not a percent-escape';
    const code = parseInt(hex, 16);
    if (isControl(code) || DISGUISED.test(String.fromCharCode(code)))
      return `escapes a character that needs no escape (%${hex})`;
  }
  return segmentProblem(target, end);
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
