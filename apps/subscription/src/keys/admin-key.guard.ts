import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { SubscriptionErrorCode as Code } from '@rp/contracts';
import { ApiError, type HttpRequest, headerOf } from '@rp/platform';
import { SubscriptionConfig } from '../config/subscription.config';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** `x-admin-key` must equal `RMS_ADMIN_API_KEY` (compared in constant time); 503 while it is unset. */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(private readonly config: SubscriptionConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.RMS_ADMIN_API_KEY;
    if (!expected) throw new ApiError(503, Code.ADMIN_NOT_CONFIGURED, 'Admin routes are not configured on this server');
    const given = headerOf(context.switchToHttp().getRequest<HttpRequest>().headers, 'x-admin-key');
    if (!given || !timingSafeEqual(digest(given), digest(expected))) {
      throw new ApiError(403, Code.INVALID_ADMIN_KEY, 'x-admin-key is missing or wrong');
    }
    return true;
  }
}
