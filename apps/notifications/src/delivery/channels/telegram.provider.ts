import { escapeHtml } from '@rp/contracts';
import type { AlertMessage } from './alert-message';
import { plainText } from './alert-message';
import { DeliveryError, kindOfStatus } from './delivery-error';
import { postJson } from './post-json';

export const TELEGRAM_MAX_TEXT = 4096;

/** The message as Telegram HTML, escaped, at most 4096 characters (plain text, cut, if it ever were longer). */
export function telegramText(message: AlertMessage): { text: string; parse_mode?: 'HTML' } {
  const lines = [
    `<b>${escapeHtml(message.title)}</b>`,
    '',
    ...message.facts.map((f) => `${escapeHtml(f.label)}: <b>${escapeHtml(f.value)}</b>`),
    '',
    escapeHtml(message.action),
    ...(message.howTo ? [`<code>${escapeHtml(message.howTo)}</code>`] : []),
    '',
    `<i>${escapeHtml(message.footer)}</i>`,
  ];
  const html = lines.join('\n');
  if (html.length <= TELEGRAM_MAX_TEXT) return { text: html, parse_mode: 'HTML' };
  return { text: plainText(message).slice(0, TELEGRAM_MAX_TEXT) };
}

interface TelegramAnswer {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** Telegram Bot API `sendMessage` (`MESSENGER_API_URL`, the sandbox stand-in under `npm start`). */
export class TelegramProvider {
  constructor(private readonly apiUrl: string) {}

  async send(botToken: string, chatId: string, message: AlertMessage): Promise<void> {
    const url = `${this.apiUrl.replace(/\/+$/, '')}/bot${botToken}/sendMessage`;
    const body = { chat_id: chatId, ...telegramText(message), disable_web_page_preview: true };
    const { status, text } = await postJson(url, body, 'Bot API');
    if (status >= 200 && status < 300) return;
    let answer: TelegramAnswer = {};
    try {
      answer = JSON.parse(text) as TelegramAnswer;
    } catch {
      // not JSON: the status decides
    }
    const reason = `Bot API ${status}: ${(answer.description ?? text).slice(0, 200)}`;
    if (status === 429) {
      throw new DeliveryError('rate-limited', reason, {
        retryAfterMs: (answer.parameters?.retry_after ?? 1) * 1000,
        status,
      });
    }
    if (status === 403) throw new DeliveryError('blocked', reason, { status });
    if (answer.parameters?.migrate_to_chat_id !== undefined) {
      throw new DeliveryError('migrated', reason, { newChatId: String(answer.parameters.migrate_to_chat_id), status });
    }
    throw new DeliveryError(kindOfStatus(status), reason, { status });
  }
}
