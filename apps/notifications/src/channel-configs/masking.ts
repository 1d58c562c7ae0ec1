/** `123456:AAE…` -> `123456:****wxyz`: the bot id stays readable, the secret part does not. */
export function maskBotToken(token: string): string {
  const colon = token.indexOf(':');
  const id = colon > 0 ? token.slice(0, colon) : '';
  return `${id}:****${token.slice(-4)}`;
}

/** Scheme and host only, the path (which holds the webhook's token) replaced: `https://discord.com/api/webhooks/****`. */
export function maskWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const first = parsed.pathname.split('/').filter(Boolean).slice(0, 2).join('/');
    return `${parsed.protocol}//${parsed.host}/${first}/****`;
  } catch {
    return '****';
  }
}

/** `alice@example.com` -> `a****@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '****';
  return `${email[0]}****${email.slice(at)}`;
}
