import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BodySyntaxError,
  BodyTooLargeError,
  mediaType,
  parseForm,
  parseJsonObject,
  parseMultipart,
  readBody,
  sendJson,
  splitPath,
  takeFault,
} from './http-body';
import type { MessageLog } from './message-log';
import { EntityParseError, parseFormatted } from './telegram-format';

export interface TelegramBotApiOptions {
  log: MessageLog;
  /** Injectable clock (ms) so the one-message-per-second rule is testable without sleeping. */
  now?: () => number;
  /** Minimum gap between two messages to one chat; Telegram's FAQ asks for at most one per second. */
  minIntervalMs?: number;
  maxBodyBytes?: number;
}

export type ChatId = number | string;
type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

interface Chat {
  id: number;
  type: ChatType;
  title?: string;
  username?: string;
  first_name?: string;
}

const TOKEN_SHAPE = /^\d+:[A-Za-z0-9_-]{30,}$/;
const MAX_TEXT = 4096;
const SERVER_ERRORS: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
const FORBIDDEN: Record<ChatType, string> = {
  private: 'Forbidden: bot was blocked by the user',
  group: 'Forbidden: bot was kicked from the group chat',
  supergroup: 'Forbidden: bot was kicked from the supergroup chat',
  channel: 'Forbidden: bot is not a member of the channel chat',
};

/**
 * Telegram Bot API stand-in: mount it at `/telegram` and point a bot client's API root there, so
 * `POST /telegram/bot<token>/sendMessage` behaves like `https://api.telegram.org/bot<token>/sendMessage`.
 * Any token of Telegram's shape is accepted; only the bot id part is ever recorded.
 */
export class TelegramBotApi {
  private readonly log: MessageLog;
  private readonly now: () => number;
  private readonly minIntervalMs: number;
  private readonly maxBodyBytes: number;
  private readonly blocked = new Set<string>();
  private readonly migrations = new Map<string, number>();
  private readonly rateLimits = new Map<string, { retryAfter: number; count: number }>();
  private readonly failures = new Map<'*', { status: number; count: number }>();
  private readonly lastSent = new Map<string, number>();
  private readonly messageIds = new Map<string, number>();

  constructor(options: TelegramBotApiOptions) {
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.minIntervalMs = options.minIntervalMs ?? 1_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  }

  /** `path` is what follows the mount prefix, e.g. `/bot123:abc.../sendMessage` (a query string is allowed). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const split = splitPath(req, path);
    const route = /^\/?bot([^/]*)\/([^/]*)\/?$/.exec(split.path);
    if (!route) return reply(res, 404, 'Not Found');
    const [, token, method] = route;
    if (!TOKEN_SHAPE.test(token)) return reply(res, 401, 'Unauthorized');
    const botId = Number(token.slice(0, token.indexOf(':')));
    let params: Record<string, unknown>;
    try {
      params = { ...Object.fromEntries(split.query), ...(await this.readParams(req)) };
    } catch (error) {
      if (error instanceof BodyTooLargeError) return reply(res, 413, 'Request Entity Too Large');
      if (error instanceof BodySyntaxError) return reply(res, 400, "Bad Request: can't parse JSON encoded request");
      throw error;
    }
    // Method names are case-insensitive in the Bot API.
    switch (method.toLowerCase()) {
      case 'getme':
        return sendJson(res, 200, {
          ok: true,
          result: {
            ...botUser(botId),
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        });
      case 'sendmessage':
        return this.sendMessage(res, botId, params);
      default:
        return reply(res, 404, 'Not Found: method not found');
    }
  }

  /** sendMessage to this chat answers 403 until `reset()` or `unblockChat()`. */
  blockChat(chatId: ChatId): void {
    this.blocked.add(chatKey(chatId));
  }

  unblockChat(chatId: ChatId): void {
    this.blocked.delete(chatKey(chatId));
  }

  /** The old id answers 400 with `migrate_to_chat_id`; the new id works like any chat. */
  migrateChat(chatId: ChatId, newChatId: number): void {
    this.migrations.set(chatKey(chatId), newChatId);
  }

  /** The next `count` sendMessage calls to this chat (or any, with '*') answer 429 retry after N. */
  rateLimitNext(chatId: ChatId | '*', retryAfterSeconds: number, count = 1): void {
    this.rateLimits.set(chatId === '*' ? '*' : chatKey(chatId), { retryAfter: retryAfterSeconds, count });
  }

  /** The next `count` sendMessage calls answer this 5xx; getMe is left alone so start-up checks still pass. */
  failNext(status = 500, count = 1): void {
    if (status < 500 || status > 599) throw new RangeError(`failNext expects a 5xx status, got ${status}`);
    this.failures.set('*', { status, count });
  }

  reset(): void {
    for (const state of [
      this.blocked,
      this.migrations,
      this.rateLimits,
      this.failures,
      this.lastSent,
      this.messageIds,
    ]) {
      state.clear();
    }
  }

  private async readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
    const body = await readBody(req, this.maxBodyBytes);
    if (body.length === 0) return {};
    const type = mediaType(req);
    if (type === 'application/json') return parseJsonObject(body);
    if (type === 'multipart/form-data') return (await parseMultipart(req, body)).fields;
    return parseForm(body);
  }

  private sendMessage(res: ServerResponse, botId: number, params: Record<string, unknown>): void {
    const rawText = scalar(params['text']) ?? '';
    let plain = rawText;
    const reject = (status: number, description: string, extra: Record<string, unknown> = {}, headers = {}): void => {
      this.log.record({
        channel: 'telegram',
        destination: scalar(params['chat_id']) ?? '',
        text: plain,
        payload: params,
        outcome: 'rejected',
        status,
        source: `bot:${botId}`,
      });
      sendJson(res, status, { ok: false, error_code: status, description, ...extra }, headers);
    };
    const tooMany = (retryAfter: number): void =>
      reject(
        429,
        `Too Many Requests: retry after ${retryAfter}`,
        { parameters: { retry_after: retryAfter } },
        { 'retry-after': String(retryAfter) },
      );

    const chat = resolveChat(params['chat_id']);
    if (typeof chat === 'string') return reject(400, chat);
    const key = chatKey(params['chat_id'] as ChatId);
    const failure = takeFault(this.failures, '*');
    if (failure) return reject(failure.status, SERVER_ERRORS[failure.status] ?? 'Internal Server Error');
    const forced = takeFault(this.rateLimits, key, '*');
    if (forced) return tooMany(forced.retryAfter);
    const migratedTo = this.migrations.get(key);
    if (migratedTo !== undefined) {
      return reject(400, 'Bad Request: group chat was upgraded to a supergroup chat', {
        parameters: { migrate_to_chat_id: migratedTo },
      });
    }
    let formatted;
    try {
      formatted = parseFormatted(rawText, scalar(params['parse_mode']));
    } catch (error) {
      if (error instanceof EntityParseError) return reject(400, `Bad Request: can't parse entities: ${error.message}`);
      return reject(400, 'Bad Request: unsupported parse_mode');
    }
    plain = formatted.text;
    // tdlib trims surrounding whitespace before checking; the limit is in UTF-16 units like entity offsets.
    if (plain.trim() === '') return reject(400, 'Bad Request: message text is empty');
    if (plain.trimEnd().length > MAX_TEXT) return reject(400, 'Bad Request: message is too long');
    if (this.blocked.has(key)) return reject(403, FORBIDDEN[chat.type]);
    const now = this.now();
    const last = this.lastSent.get(key);
    if (last !== undefined && now - last < this.minIntervalMs) {
      return tooMany(Math.max(1, Math.ceil((last + this.minIntervalMs - now) / 1000)));
    }
    this.lastSent.set(key, now);
    const messageId = (this.messageIds.get(key) ?? 0) + 1;
    this.messageIds.set(key, messageId);
    const message: Record<string, unknown> = {
      message_id: messageId,
      ...(chat.type === 'channel' ? { sender_chat: chat } : { from: botUser(botId) }),
      chat,
      date: Math.floor(now / 1000),
      text: plain,
    };
    const entities = formatted.entities.length > 0 ? formatted.entities : explicitEntities(params['entities']);
    if (entities) message['entities'] = entities;
    if (params['link_preview_options'] && typeof params['link_preview_options'] === 'object') {
      message['link_preview_options'] = params['link_preview_options'];
    } else if (String(params['disable_web_page_preview']) === 'true') {
      message['link_preview_options'] = { is_disabled: true };
    }
    this.log.record({
      channel: 'telegram',
      destination: scalar(params['chat_id']) ?? '',
      text: plain,
      payload: params,
      outcome: 'delivered',
      status: 200,
      source: `bot:${botId}`,
    });
    sendJson(res, 200, { ok: true, result: message });
  }
}

function reply(res: ServerResponse, status: number, description: string): void {
  sendJson(res, status, { ok: false, error_code: status, description });
}

function botUser(botId: number): Record<string, unknown> {
  return { id: botId, is_bot: true, first_name: 'Sandbox Bot', username: `sandbox_${botId}_bot` };
}

function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

function chatKey(chatId: ChatId): string {
  const text = String(chatId).trim();
  // Usernames are case-insensitive; numeric ids arrive as numbers or strings.
  return text.startsWith('@') ? text.toLowerCase() : text;
}

/** The chat as Telegram would describe it, or the error description. */
function resolveChat(raw: unknown): Chat | string {
  const text = scalar(raw)?.trim() ?? '';
  if (text === '') return 'Bad Request: chat_id is empty';
  if (/^@[A-Za-z][A-Za-z0-9_]{3,31}$/.test(text)) {
    const name = text.slice(1);
    return { id: channelId(name.toLowerCase()), title: name, username: name, type: 'channel' };
  }
  const id = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(id) || id === 0) return 'Bad Request: chat not found';
  if (id > 0) return { id, first_name: 'Sandbox User', type: 'private' };
  // Supergroup and channel ids are -100 followed by the channel id; small negative ids are basic groups.
  if (id <= -1_000_000_000_000) return { id, title: 'Sandbox Supergroup', type: 'supergroup' };
  return { id, title: 'Sandbox Group', type: 'group' };
}

/** A stable channel-style id for an @username, since the real one cannot be known offline. */
function channelId(name: string): number {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) % 1_000_000_000;
  return -(1_000_000_000_000 + hash);
}

function explicitEntities(raw: unknown): unknown[] | undefined {
  if (Array.isArray(raw)) return raw.length > 0 ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) && parsed.length > 0 ? parsed : undefined;
  } catch {
    return undefined;
  }
}
