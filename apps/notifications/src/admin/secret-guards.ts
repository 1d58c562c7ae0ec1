import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError, type HttpRequest, headerOf } from '@rp/platform';
import { NotificationsSettings } from '../settings/notifications-settings';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time comparison of a header with a configured secret (digests, so lengths never leak). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

/** `x-admin-key` must equal `RMS_ADMIN_API_KEY`; 503 while it is unset. */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(private readonly config: NotificationsSettings) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.RMS_ADMIN_API_KEY;
    if (!expected) throw new ApiError(503, 'ADMIN_NOT_CONFIGURED', 'Admin routes are not configured on this server');
    const given = headerOf(context.switchToHttp().getRequest<HttpRequest>().headers, 'x-admin-key');
    if (!sameSecret(given, expected)) throw new ApiError(403, 'INVALID_ADMIN_KEY', 'x-admin-key is missing or wrong');
    return true;
  }
}

/** `X-Webhook-Secret` must equal `RMS_WEBHOOK_SECRET`; 503 while it is unset. */
@Injectable()
export class WebhookSecretGuard implements CanActivate {
  constructor(private readonly config: NotificationsSettings) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.RMS_WEBHOOK_SECRET;
    if (!expected)
      throw new ApiError(503, 'WEBHOOK_NOT_CONFIGURED', 'The alert webhook is not configured on this server');
    const given = headerOf(context.switchToHttp().getRequest<HttpRequest>().headers, 'x-webhook-secret');
    if (!sameSecret(given, expected))
      throw new ApiError(403, 'INVALID_WEBHOOK_SECRET', 'X-Webhook-Secret is missing or wrong');
    return true;
  }
}
