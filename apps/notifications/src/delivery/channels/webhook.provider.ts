import type { AlertMessage } from './alert-message';
import { LEVEL_COLOR, plainText } from './alert-message';
import { DeliveryError, kindOfStatus, retryAfterMs } from './delivery-error';
import { postJson } from './post-json';
import { type WebhookUrlPolicy, flavorOf } from './webhook-url';

/** Discord: one embed with the facts as inline fields, coloured by level. */
export function discordPayload(message: AlertMessage): object {
  return {
    content: message.title.slice(0, 2000),
    embeds: [
      {
        title: message.title.slice(0, 256),
        description: [message.action, ...(message.howTo ? [message.howTo] : [])].join('\n\n').slice(0, 4096),
        color: LEVEL_COLOR[message.level],
        fields: message.facts.map((f) => ({
          name: f.label.slice(0, 256),
          value: f.value.slice(0, 1024),
          inline: true,
        })),
        footer: { text: message.footer.slice(0, 2048) },
      },
    ],
  };
}

/** Slack: header, the facts as section fields, the action and a context line; `text` is the fallback. */
export function slackPayload(message: AlertMessage): object {
  return {
    text: plainText(message).slice(0, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: message.title.slice(0, 150) } },
      {
        type: 'section',
        fields: message.facts.map((f) => ({ type: 'mrkdwn', text: `*${f.label}*\n${f.value}`.slice(0, 2000) })),
      },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: [message.action, ...(message.howTo ? [`\`${message.howTo}\``] : [])].join('\n').slice(0, 3000),
        },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: message.footer.slice(0, 3000) }] },
    ],
  };
}

/** Discord or Slack incoming webhook, chosen by the URL; the URL is checked against the SSRF rules before each send. */
export class WebhookProvider {
  constructor(private readonly policy: WebhookUrlPolicy) {}

  async send(url: string, message: AlertMessage): Promise<void> {
    const check = await this.policy.check(url);
    if (!check.ok) throw new DeliveryError('permanent', `webhook URL refused: ${check.reason}`);
    const slack = flavorOf(new URL(url)) === 'slack';
    // A public host is connected to through the policy's lookup: only addresses checked at connect time are used.
    const { status, text, header } = await postJson(
      url,
      slack ? slackPayload(message) : discordPayload(message),
      'webhook',
      {
        lookup: check.lookup,
      },
    );
    if (status >= 200 && status < 300) return;
    const reason = `webhook ${status}: ${text.slice(0, 200)}`;
    if (status === 429)
      throw new DeliveryError('rate-limited', reason, {
        retryAfterMs: retryAfterMs(header('retry-after')),
        status,
      });
    throw new DeliveryError(kindOfStatus(status), reason, { status });
  }
}
