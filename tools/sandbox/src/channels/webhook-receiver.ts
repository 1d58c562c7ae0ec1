import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  BodySyntaxError,
  BodyTooLargeError,
  mediaType,
  parseForm,
  parseJsonObject,
  parseMultipart,
  readBody,
  sendJson,
  sendText,
  splitPath,
  takeFault,
} from './http-body';
import type { MessageLog, ReceivedFile } from './message-log';
import { discordText, slackText, validateDiscord, validateSlack, type Rejection } from './webhook-payloads';

/**
 * Path conventions (the part after `/hooks/`):
 * - `discord/<numeric id>/<token>`: Discord execute-webhook (`https://discord.com/api/webhooks/<id>/<token>`).
 * - `slack/<anything>`, e.g. `slack/T000/B000/XXXX`: Slack incoming webhook (`https://hooks.slack.com/services/...`).
 * - anything else: a generic JSON/text receiver that records the body and answers 204.
 */
export type HookKind = 'discord' | 'slack' | 'generic';

export interface RateLimitRule {
  /** Requests allowed per window per hook; requests that fail validation count too, as on Discord. */
  limit: number;
  windowMs: number;
}

export interface WebhookReceiverOptions {
  log: MessageLog;
  now?: () => number;
  /** Defaults: Discord 5 per 2 s (its per-webhook bucket), Slack 1 per 1 s, generic unlimited. */
  rateLimits?: Partial<Record<HookKind, RateLimitRule | null>>;
  maxBodyBytes?: number;
}

type Json = Record<string, unknown>;
type Answer = { status: number; body?: Json | string; headers?: Record<string, string> };

const DEFAULT_LIMITS: Record<HookKind, RateLimitRule | null> = {
  discord: { limit: 5, windowMs: 2_000 },
  slack: { limit: 1, windowMs: 1_000 },
  generic: null,
};
const DISCORD_EPOCH = 1_420_070_400_000n;

/** Accepts `/hooks/x`, `hooks/x`, `/x` or `x` (with or without a query) and returns `x`. */
export function normalizeHookPath(path: string): string {
  return path
    .split('?')[0]
    .replace(/^\/+/, '')
    .replace(/^hooks\//, '')
    .replace(/\/+$/, '');
}

export function hookKind(hook: string): HookKind {
  const first = hook.split('/')[0];
  return first === 'discord' || first === 'slack' ? first : 'generic';
}

/** Receives Discord and Slack webhooks (and anything else under /hooks/) and records them in the log. */
export class WebhookReceiver {
  private readonly log: MessageLog;
  private readonly now: () => number;
  private readonly limits: Record<HookKind, RateLimitRule | null>;
  private readonly maxBodyBytes: number;
  private readonly removed = new Map<string, 404 | 410>();
  private readonly rateLimits = new Map<string, { retryAfter: number; count: number }>();
  private readonly failures = new Map<string, { status: number; count: number }>();
  private readonly windows = new Map<string, { start: number; count: number }>();
  private sequence = 0n;

  constructor(options: WebhookReceiverOptions) {
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.limits = { ...DEFAULT_LIMITS, ...options.rateLimits };
    this.maxBodyBytes = options.maxBodyBytes ?? 8 * 1_048_576;
  }

  /** `path` is what follows `/hooks/`, e.g. `discord/123/abc?wait=true`. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const split = splitPath(req, path);
    const hook = normalizeHookPath(split.path);
    const kind = hookKind(hook);
    const answer = await this.process(req, hook, kind, split.query);
    respond(res, answer);
  }

  /** The next `count` posts to this hook answer 429 with this Retry-After. */
  rateLimitNext(path: string, retryAfterSeconds: number, count = 1): void {
    this.rateLimits.set(path === '*' ? '*' : normalizeHookPath(path), { retryAfter: retryAfterSeconds, count });
  }

  /** Discord answers 404 Unknown Webhook either way; Slack 404 no_service or 410 channel_is_archived. */
  removeHook(path: string, status: 404 | 410 = 404): void {
    this.removed.set(normalizeHookPath(path), status);
  }

  restoreHook(path: string): void {
    this.removed.delete(normalizeHookPath(path));
  }

  failNext(path: string, status = 500, count = 1): void {
    this.failures.set(path === '*' ? '*' : normalizeHookPath(path), { status, count });
  }

  reset(): void {
    for (const state of [this.removed, this.rateLimits, this.failures, this.windows]) state.clear();
  }

  private async process(req: IncomingMessage, hook: string, kind: HookKind, query: URLSearchParams): Promise<Answer> {
    if (req.method !== 'POST') {
      return kind === 'discord'
        ? { status: 405, body: { message: '405: Method Not Allowed', code: 0 } }
        : { status: 405, body: 'invalid_method' };
    }
    if (kind === 'discord' && !/^discord\/\d+\/[^/]+$/.test(hook)) return unknownWebhook(kind);
    if (kind === 'slack' && !/^slack\/.+/.test(hook)) return unknownWebhook(kind);
    let payload: Json;
    let files: readonly ReceivedFile[] = [];
    try {
      ({ payload, files } = await this.readPayload(req, kind));
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        return this.reject(
          hook,
          kind,
          {},
          {
            status: 413,
            body: kind === 'discord' ? { message: 'Request entity too large', code: 40005 } : 'request_too_large',
          },
        );
      }
      if (!(error instanceof BodySyntaxError)) throw error;
      const body =
        kind === 'discord' ? { message: 'The request body contains invalid JSON.', code: 50109 } : 'invalid_payload';
      return this.reject(hook, kind, {}, { status: 400, body });
    }
    const removed = this.removed.get(hook);
    if (removed) return this.reject(hook, kind, payload, unknownWebhook(kind, removed));
    const failure = takeFault(this.failures, hook, '*');
    if (failure) {
      const reason = STATUS_CODES[failure.status] ?? 'Error';
      const body =
        kind === 'discord'
          ? { message: `${failure.status}: ${reason}`, code: 0 }
          : failure.status >= 500
            ? 'rollup_error'
            : reason;
      return this.reject(hook, kind, payload, { status: failure.status, body });
    }
    const forced = takeFault(this.rateLimits, hook, '*');
    if (forced) return this.reject(hook, kind, payload, rateLimited(kind, forced.retryAfter * 1000));
    const rule = this.limits[kind];
    const window = rule ? this.consume(hook, rule) : undefined;
    // Only Discord documents X-RateLimit-* headers; Slack and generic hooks just get Retry-After on a 429.
    const headers = kind === 'discord' ? window?.headers : undefined;
    if (window && window.retryAfterMs > 0)
      return this.reject(hook, kind, payload, rateLimited(kind, window.retryAfterMs, headers));
    const invalid =
      kind === 'discord' ? validateDiscord(payload) : kind === 'slack' ? validateSlack(payload) : undefined;
    if (invalid) return this.reject(hook, kind, payload, { ...invalid, headers });

    const wait = kind === 'discord' && /^(true|1)$/i.test(query.get('wait') ?? '');
    const status = kind === 'slack' || wait ? 200 : 204;
    this.log.record({
      channel: 'webhook',
      destination: hook,
      text: textOf(kind, payload),
      payload,
      outcome: 'delivered',
      status,
      source: kind,
      ...(files.length > 0 ? { files } : {}),
    });
    if (kind === 'slack') return { status, body: 'ok' };
    return { status, body: wait ? this.discordMessage(hook, payload, files) : undefined, headers };
  }

  private reject(hook: string, kind: HookKind, payload: Json, answer: Answer): Answer {
    this.log.record({
      channel: 'webhook',
      destination: hook,
      text: textOf(kind, payload),
      payload,
      outcome: 'rejected',
      status: answer.status,
      source: kind,
    });
    return answer;
  }

  private async readPayload(req: IncomingMessage, kind: HookKind): Promise<{ payload: Json; files: ReceivedFile[] }> {
    const body = await readBody(req, this.maxBodyBytes);
    const type = mediaType(req);
    if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
      const multipart = type === 'multipart/form-data' ? await parseMultipart(req, body) : undefined;
      const form = multipart?.fields ?? parseForm(body);
      // File parts as received (digest and size, not the bytes) for the log and Discord's `attachments`.
      const files = (multipart?.files ?? []).map(({ bytes: _bytes, ...file }) => file);
      // Slack posts form bodies as payload=<json>; Discord multipart carries payload_json.
      const embedded = kind === 'slack' ? form['payload'] : kind === 'discord' ? form['payload_json'] : undefined;
      return { payload: embedded !== undefined ? parseJsonObject(Buffer.from(embedded)) : form, files };
    }
    if (kind === 'generic' && type !== 'application/json')
      return { payload: { body: body.toString('utf8') }, files: [] };
    if (body.length === 0 && kind === 'discord') return { payload: {}, files: [] };
    return { payload: parseJsonObject(body), files: [] };
  }

  /** Fixed window per hook; returns how long until a slot frees up (0 when this request may pass). */
  private consume(hook: string, rule: RateLimitRule): { retryAfterMs: number; headers: Record<string, string> } {
    const now = this.now();
    let window = this.windows.get(hook);
    if (!window || now - window.start >= rule.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(hook, window);
    }
    const resetAfterMs = window.start + rule.windowMs - now;
    const limited = window.count >= rule.limit;
    if (!limited) window.count += 1;
    const headers = {
      'x-ratelimit-limit': String(rule.limit),
      'x-ratelimit-remaining': String(rule.limit - window.count),
      'x-ratelimit-reset': ((window.start + rule.windowMs) / 1000).toFixed(3),
      'x-ratelimit-reset-after': (resetAfterMs / 1000).toFixed(3),
      'x-ratelimit-bucket': `sandbox-${hook.split('/').slice(0, 2).join('-')}`,
    };
    return { retryAfterMs: limited ? resetAfterMs : 0, headers };
  }

  private discordMessage(hook: string, payload: Json, files: readonly ReceivedFile[]): Json {
    const [, webhookId] = hook.split('/');
    const now = this.now();
    const id = (((BigInt(now) - DISCORD_EPOCH) << 22n) | (this.sequence++ & 0xfffn)).toString();
    const embeds = Array.isArray(payload['embeds'])
      ? payload['embeds'].map((e: unknown) => ({ type: 'rich', ...(e as Json) }))
      : [];
    return {
      id,
      type: 0,
      content: typeof payload['content'] === 'string' ? payload['content'] : '',
      channel_id: webhookId,
      author: {
        id: webhookId,
        username: payload['username'] ?? 'Sandbox Hook',
        avatar: null,
        discriminator: '0000',
        bot: true,
        global_name: null,
      },
      attachments: files.map((file, index) => ({
        id: String(index),
        filename: file.filename,
        size: file.size,
        content_type: file.contentType,
      })),
      embeds,
      mentions: [],
      mention_roles: [],
      pinned: false,
      mention_everyone: false,
      tts: payload['tts'] === true,
      timestamp: new Date(now).toISOString(),
      edited_timestamp: null,
      flags: payload['flags'] ?? 0,
      components: payload['components'] ?? [],
      webhook_id: webhookId,
    };
  }
}

function textOf(kind: HookKind, payload: Json): string {
  if (kind === 'discord') return discordText(payload);
  if (kind === 'slack') return slackText(payload);
  const text = ['text', 'content', 'message', 'body'].map((k) => payload[k]).find((v) => typeof v === 'string');
  return typeof text === 'string' ? text : JSON.stringify(payload);
}

function unknownWebhook(kind: HookKind, status: 404 | 410 = 404): Rejection {
  if (kind === 'discord') return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
  if (kind === 'slack') return { status, body: status === 410 ? 'channel_is_archived' : 'no_service' };
  return { status, body: '' };
}

function rateLimited(kind: HookKind, retryAfterMs: number, headers: Record<string, string> = {}): Answer {
  const retryAfter = Math.max(retryAfterMs, 1) / 1000;
  const all = { ...headers, 'retry-after': String(Math.ceil(retryAfter)) };
  if (kind !== 'discord') return { status: 429, body: 'rate_limited', headers: all };
  const body = { message: 'You are being rate limited.', retry_after: Number(retryAfter.toFixed(3)), global: false };
  return { status: 429, body, headers: { ...all, 'x-ratelimit-scope': 'user' } };
}

function respond(res: ServerResponse, answer: Answer): void {
  const headers = answer.headers ?? {};
  if (answer.body === undefined || answer.body === '') {
    res.writeHead(answer.status, headers);
    res.end();
  } else if (typeof answer.body === 'string') {
    sendText(res, answer.status, answer.body, headers);
  } else {
    sendJson(res, answer.status, answer.body, headers);
  }
}
