import type { ChannelStandIns, SmtpFaultCode, SmtpStage } from '../channels';
import { BadRequestError } from '../server/http-io';

type Body = Record<string, unknown>;

const SMTP_CODES: readonly number[] = [421, 450, 451, 452, 550, 552, 554];

/**
 * Faults for the channel stand-ins, by channel:
 * - telegram: `{kind: "block"|"unblock"|"migrate"|"rate-limit"|"fail", chatId, newChatId?, retryAfter?, count?, status?}`
 * - hooks: `{kind: "rate-limit"|"remove"|"restore"|"fail", path, retryAfter?, status?, count?}`
 * - smtp: `{stage: "rcpt"|"data", code, count?}`
 */
export function channelFault(channels: ChannelStandIns, channel: string, body: Body): unknown {
  const count = positive(body.count ?? 1, 'count');
  if (channel === 'smtp') {
    const stage = body.stage;
    if (stage !== 'rcpt' && stage !== 'data') throw new BadRequestError('stage must be "rcpt" or "data"');
    if (typeof body.code !== 'number' || !SMTP_CODES.includes(body.code))
      throw new BadRequestError(`code must be one of ${SMTP_CODES.join(', ')}`);
    channels.smtp.failNext({ stage: stage as SmtpStage, code: body.code as SmtpFaultCode, count });
    return { ok: true };
  }
  if (channel === 'telegram') {
    const chatId = body.chatId;
    if (typeof chatId !== 'number' && typeof chatId !== 'string' && body.kind !== 'fail')
      throw new BadRequestError('chatId is required');
    const chat = chatId as number | string;
    switch (body.kind) {
      case 'block':
        channels.telegram.blockChat(chat);
        break;
      case 'unblock':
        channels.telegram.unblockChat(chat);
        break;
      case 'migrate':
        if (typeof body.newChatId !== 'number' || !Number.isSafeInteger(body.newChatId))
          throw new BadRequestError('newChatId must be an integer');
        channels.telegram.migrateChat(chat, body.newChatId);
        break;
      case 'rate-limit':
        channels.telegram.rateLimitNext(chat, positive(body.retryAfter ?? 1, 'retryAfter'), count);
        break;
      case 'fail':
        channels.telegram.failNext(positive(body.status ?? 500, 'status'), count);
        break;
      default:
        throw new BadRequestError('kind must be block, unblock, migrate, rate-limit or fail');
    }
    return { ok: true };
  }
  const path = body.path;
  if (typeof path !== 'string' || path.length === 0)
    throw new BadRequestError('path is required (the part after /hooks/)');
  switch (body.kind) {
    case 'rate-limit':
      channels.webhooks.rateLimitNext(path, positive(body.retryAfter ?? 1, 'retryAfter'), count);
      break;
    case 'remove':
      if (body.status !== undefined && body.status !== 404 && body.status !== 410)
        throw new BadRequestError('status must be 404 or 410');
      channels.webhooks.removeHook(path, (body.status ?? 404) as 404 | 410);
      break;
    case 'restore':
      channels.webhooks.restoreHook(path);
      break;
    case 'fail':
      channels.webhooks.failNext(path, positive(body.status ?? 500, 'status'), count);
      break;
    default:
      throw new BadRequestError('kind must be rate-limit, remove, restore or fail');
  }
  return { ok: true };
}

function positive(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new BadRequestError(`${field} must be a positive integer`);
  return value;
}
