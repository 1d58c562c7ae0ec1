import { AppProcess } from '@rp/dev';

/**
 * Issues a partner key through a gateway's admin route (`POST /api/v1/keys/partners`, `x-admin-key`) as a client
 * at `ip` (the gateway must trust one proxy hop), with room for many calls; returns the key.
 */
export async function issuePartnerKey(gateway: AppProcess, adminKey: string, ip: string): Promise<string> {
  const response = await fetch(`${gateway.url}/api/v1/keys/partners`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-key': adminKey, 'x-forwarded-for': ip },
    body: JSON.stringify({ email: 'partner@example.com', rateLimit: 6000, burst: 1000, durationDays: 1 }),
  });
  const body = (await response.json()) as { apiKey?: string };
  if (response.status !== 201 || !body.apiKey) {
    throw new Error(`partner key: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.apiKey;
}
