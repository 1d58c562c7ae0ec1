import { CanActivate, ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import { CallerIdentity, SubscriptionErrorCode } from '@rp/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';

const CALLER = Symbol('rp:caller-identity');

type RequestWithCaller = FastifyRequest & { [CALLER]?: CallerIdentity };

/** Set by the internal-auth middleware once the gateway's identity header has been accepted. */
export function attachCallerIdentity(req: FastifyRequest, identity: CallerIdentity): void {
  (req as RequestWithCaller)[CALLER] = identity;
}

/** The API key's owner the gateway vouched for, or `undefined` (public and admin routes, direct calls). */
export function callerIdentity(req: FastifyRequest): CallerIdentity | undefined {
  return (req as RequestWithCaller)[CALLER];
}

/** The caller, or a 401 `API_KEY_REQUIRED` when the request carries no identity. */
export function requireCaller(req: FastifyRequest): CallerIdentity {
  const identity = callerIdentity(req);
  if (!identity) {
    throw new ApiError(401, SubscriptionErrorCode.API_KEY_REQUIRED, 'An API key is required', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  return identity;
}

export interface CallerOptions {
  /** Resolve to `undefined` instead of answering 401 when there is no caller. */
  optional?: boolean;
}

/**
 * The route parameter for the caller: `@Caller() caller: CallerIdentity` answers 401 `API_KEY_REQUIRED` when there
 * is none; `@Caller({ optional: true }) caller: CallerIdentity | undefined` does not.
 */
export const Caller = createParamDecorator(
  (options: CallerOptions | undefined, context: ExecutionContext): CallerIdentity | undefined => {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    return options?.optional ? callerIdentity(req) : requireCaller(req);
  },
);

/** `@UseGuards(CallerRequired)` on a controller or route: every call needs an identity, else 401. */
@Injectable()
export class CallerRequired implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    requireCaller(context.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }
}
