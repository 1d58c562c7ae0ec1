import { randomBytes } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import type { KeyIntrospection } from '@rp/contracts';
import { verifyInternalRequest } from '@rp/platform';

export interface ForwardedCall {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export interface IntrospectionCall {
  apiKey: string;
  /** Whether the gateway's internal signature verified, body hash included. */
  signed: boolean;
}

/** A fresh key of the real shape: `rp_test_` and 32 base62 characters. */
export function newApiKey(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return `rp_test_${[...randomBytes(32)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/**
 * A stand-in for the services behind the gateway: it plays the subscription service's key introspection
 * (`POST /internal/keys/introspect`, refused unless signed with `token`) for the keys it is given, and answers
 * every other call with 200 after recording what reached it. A key registered as `'hang-up'` makes it drop the
 * connection, as a service that is down would.
 */
export async function fakeSubscription(token: string) {
  const keys = new Map<string, KeyIntrospection | 'hang-up'>();
  const forwarded: ForwardedCall[] = [];
  const introspections: IntrospectionCall[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = req.headers;
      if (req.url !== '/internal/keys/introspect') {
        forwarded.push({ method: req.method ?? '', url: req.url ?? '', headers });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        return;
      }
      const body = Buffer.concat(chunks);
      const signed = verifyInternalRequest(token, { method: req.method ?? '', path: req.url, headers, body }).ok;
      const apiKey = String((JSON.parse(body.toString() || '{}') as { apiKey?: unknown }).apiKey);
      introspections.push({ apiKey, signed });
      const answer = keys.get(apiKey) ?? { active: false, reason: 'unknown' };
      if (answer === 'hang-up') {
        req.socket.destroy();
        return;
      }
      res.writeHead(signed ? 200 : 403, { 'content-type': 'application/json' });
      res.end(JSON.stringify(signed ? answer : { success: false, status: 403, code: 'INTERNAL_AUTH_REQUIRED' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwarded,
    introspections,
    /** Registers a key and returns it. */
    key(answer: KeyIntrospection | 'hang-up'): string {
      const apiKey = newApiKey();
      keys.set(apiKey, answer);
      return apiKey;
    },
    close(): void {
      server.closeAllConnections();
      server.close();
    },
  };
}

export type FakeSubscription = Awaited<ReturnType<typeof fakeSubscription>>;
