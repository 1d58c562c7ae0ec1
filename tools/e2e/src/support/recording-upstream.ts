import { createHash } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** One request as it reached the upstream: what the gateway forwarded, byte for byte. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  bodySha256: string;
  bodyLength: number;
  body: Buffer;
}

export interface Upstream {
  server: Server;
  url: string;
  seen: Seen[];
  /** Lets the streaming route send its second chunk; it holds it until then. */
  releaseStream(): void;
  /** Lets the slow route answer; it holds its answer until then. */
  releaseSlow(): void;
}

/**
 * Plays txb for the gateway (a stand-in for our own service, kept because it records what reached it, byte for
 * byte, which the real txb cannot show; docs/testing.md): answers 402 with a header by default, and has routes that
 * stream, stall, hold their answer, or stay silent.
 */
export function upstream(): Promise<Upstream> {
  const seen: Seen[] = [];
  let release: () => void = () => undefined;
  let released = new Promise<void>((resolve) => (release = resolve));
  let releaseSlow: () => void = () => undefined;
  const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      chunks.push(chunk);
      length += chunk.length;
    });
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        bodySha256: hash.digest('hex'),
        bodyLength: length,
        body: Buffer.concat(chunks),
      });
      if (req.url?.startsWith('/api/v1/txb/stream')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first\n');
        void released.then(() => {
          res.end('second\n');
          released = new Promise<void>((resolve) => (release = resolve));
        });
      } else if (req.url?.startsWith('/api/v1/txb/stalls')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial\n');
      } else if (req.url?.startsWith('/api/v1/txb/slow')) {
        void slowReleased.then(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('done slowly'));
      } else if (req.url?.startsWith('/api/v1/txb/silent')) {
        // never answers
      } else {
        res.writeHead(402, { 'content-type': 'application/json', 'payment-required': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' });
        res.end(JSON.stringify({ error: 'Payment required', status: 402 }));
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        releaseStream: () => release(),
        releaseSlow: () => releaseSlow(),
      }),
    ),
  );
}
