export interface DemoWallet {
  label: string;
  address: string;
}

/** What the banner says about the demo wallets' notification configs. */
export type DemoNotificationsOutcome =
  | { registered: true; wallets: number }
  | { registered: false; reason: string };

/**
 * Registers notification configs for the demo wallets, pointing at the sandbox's stand-ins: Telegram (a chat of the
 * Bot API stand-in), a Discord webhook of the receiver, and the SMTP sink. The configs belong to an API key issued
 * by the partner route with the launcher's admin key. Until the notifications routes exist (the gateway answers
 * 404), nothing is registered and `npm start` goes on.
 */
export async function registerDemoNotifications(
  gatewayUrl: string,
  adminKey: string,
  sandboxUrl: string,
  wallets: readonly DemoWallet[],
): Promise<DemoNotificationsOutcome> {
  const api = `${gatewayUrl.replace(/\/$/, '')}/api/v1`;
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  // One named partner account for every launch: each launch's key registers over the same configurations instead
  // of adding another account's copies to a kept database (ADR 015).
  const issued = await post(
    '/keys/partners',
    {
      email: 'demo-notifications@example.com',
      partner: 'sandbox-demo',
      rateLimit: 600,
      burst: 600,
      durationDays: 365,
    },
    { 'x-admin-key': adminKey },
  );
  if (issued.status !== 201) return { registered: false, reason: `no key for the demo configs (${issued.status})` };
  const { apiKey } = (await issued.json()) as { apiKey: string };
  const auth = { authorization: `Bearer ${apiKey}` };
  let done = 0;
  for (const [index, wallet] of wallets.entries()) {
    const chatId = String(1_000 + index);
    const registrations: [string, object][] = [
      // The service's default bot (MESSENGER_BOT_TOKEN) talks to the sandbox's Telegram stand-in.
      ['/messenger', { walletAddress: wallet.address, messengerChatId: chatId, minRiskLevel: 'medium' }],
      [
        '/channelhook',
        { walletAddress: wallet.address, channelWebhook: `${sandboxUrl}/hooks/discord/${100_000 + index}/sandbox-demo-token`, minRiskLevel: 'medium' },
      ],
      ['/email', { walletAddress: wallet.address, email: `demo-wallet-${index}@example.com`, minRiskLevel: 'medium' }],
    ];
    for (const [path, body] of registrations) {
      const answer = await post(`/rms/notifications${path}`, body, auth);
      if (answer.status === 404) return { registered: false, reason: 'the notifications routes are not there yet' };
      if (answer.status >= 300) {
        return { registered: false, reason: `${path} answered ${answer.status}: ${(await answer.text()).slice(0, 200)}` };
      }
    }
    done += 1;
  }
  return { registered: true, wallets: done };
}
