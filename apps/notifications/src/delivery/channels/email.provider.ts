import { escapeHtml } from '@rp/contracts';
import { createTransport, type Transporter } from 'nodemailer';
import type { AlertMessage } from './alert-message';
import { plainText } from './alert-message';
import { DeliveryError } from './delivery-error';
import { addressOf, mimeMessage } from './email-mime';

export interface SmtpSettings {
  host?: string;
  port: number;
  user?: string;
  password?: string;
  from?: string;
}

export function emailHtml(message: AlertMessage): string {
  const rows = message.facts
    .map(
      (f) =>
        `<tr><td style="padding:2px 12px 2px 0;color:#555">${escapeHtml(f.label)}</td><td><b>${escapeHtml(f.value)}</b></td></tr>`,
    )
    .join('');
  const howTo = message.howTo ? `<p><code>${escapeHtml(message.howTo)}</code></p>` : '';
  return `<!doctype html><html><body style="font-family:sans-serif"><h2>${escapeHtml(message.title)}</h2><table>${rows}</table><p>${escapeHtml(message.action)}</p>${howTo}<p style="color:#777;font-size:12px">${escapeHtml(message.footer)}</p></body></html>`;
}

/**
 * SMTP through one pooled nodemailer transport with short timeouts (the message built by `mimeMessage`, handed over
 * whole); reply 4xx = retry, 5xx = permanent.
 */
export class EmailProvider {
  private readonly transport?: Transporter;

  constructor(private readonly smtp: SmtpSettings) {
    if (!smtp.host) return;
    this.transport = createTransport({
      pool: true,
      maxConnections: 16,
      maxMessages: Infinity,
      host: smtp.host,
      port: smtp.port,
      secure: smtp.port === 465,
      auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 10_000,
    });
  }

  async send(to: string, message: AlertMessage): Promise<void> {
    if (!this.transport) throw new DeliveryError('permanent', 'email is not configured on this server (SMTP_HOST)');
    try {
      const from = this.smtp.from ?? 'Risk alerts <alerts@localhost>';
      const content = { from, to, subject: message.title, text: plainText(message), html: emailHtml(message) };
      await this.transport.sendMail({ envelope: { from: addressOf(from), to: [to] }, raw: mimeMessage(content) });
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      const reason = `SMTP ${code ?? 'failure'}: ${((error as Error).message ?? '').slice(0, 200)}`;
      if (code !== undefined && code >= 500) throw new DeliveryError('permanent', reason, { status: code });
      throw new DeliveryError('transient', reason, { status: code });
    }
  }

  close(): void {
    this.transport?.close();
  }
}
