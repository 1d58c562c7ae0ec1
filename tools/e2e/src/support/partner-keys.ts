import { AppProcess } from '@rp/dev';

export interface IssuedPartnerKey {
  apiKey: string;
  /** The key's id as the subscription service records it (what the gateway signs into the identity). */
  keyId: string;
}

/**
 * Issues a partner key through a gateway's admin route (`POST /api/v1/keys/partners`, `x-admin-key`) as a client
 * at `ip` (the gateway must trust one proxy hop), with room for many calls; returns the key and its id.
 */
export async function issuePartnerKeyRecord(gateway: AppProcess, adminKey: string, ip: string): Promise<IssuedPartnerKey> {
  const response = await fetch(`${gateway.url}/api/v1/keys/partners`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-key': adminKey, 'x-forwarded-for': ip },
    body: JSON.stringify({ email: 'partner@example.com', rateLimit: 6000, burst: 1000, durationDays: 1 }),
  });
  const body = (await response.json()) as { apiKey?: string; keyId?: string };
  if (response.status !== 201 || !body.apiKey || !body.keyId) {
    throw new Error(`partner key: ${response.status} ${JSON.stringify(body)}`);
  }
  return { apiKey: body.apiKey, keyId: body.keyId };
}

/** `issuePartnerKeyRecord`, the key alone. */
export async function issuePartnerKey(gateway: AppProcess, adminKey: string, ip: string): Promise<string> {
  return (await issuePartnerKeyRecord(gateway, adminKey, ip)).apiKey;
}
