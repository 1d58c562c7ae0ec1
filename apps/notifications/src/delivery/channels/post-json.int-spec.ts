import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * Deliveries stay on HTTP/1.1 even to a provider that offers HTTP/2 (undici 8 would negotiate it by default). The
 * provider here is a TLS server speaking both, with the sandbox's loopback certificate; postJson runs in a child
 * process that trusts it (NODE_EXTRA_CA_CERTS is read when a process starts).
 */
const ROOT = resolve(__dirname, '../../../../..');
const TLS = join(ROOT, 'tools/sandbox/tls');

describe('postJson to a provider offering HTTP/2', () => {
  let server: Http2SecureServer;
  let port: number;
  const versions: string[] = [];

  beforeAll(async () => {
    server = createSecureServer({
      key: readFileSync(join(TLS, 'loopback.key')),
      cert: readFileSync(join(TLS, 'loopback.crt')),
      allowHTTP1: true,
    });
    server.on('request', (req, res) => {
      versions.push(req.httpVersion);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`http ${req.httpVersion}`);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('speaks HTTP/1.1', async () => {
    const script = [
      "const { postJson } = require('./apps/notifications/src/delivery/channels/post-json.ts');",
      `postJson('https://127.0.0.1:${port}/hook', { text: 'hi' }, 'test').then(`,
      '  (answer) => { process.stdout.write(`${answer.status} ${answer.text}`); process.exit(0); },',
      '  (error) => { process.stdout.write(String(error)); process.exit(1); });',
    ].join('\n');
    const child = spawn(process.execPath, ['-r', '@swc-node/register', '-e', script], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(TLS, 'loopback.crt'),
        SWC_NODE_PROJECT: join(ROOT, 'tsconfig.base.json'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await new Promise<number | null>((done) => child.on('exit', done));
    expect(output).toBe('200 http 1.1');
    expect(status).toBe(0);
    expect(versions).toEqual(['1.1']);
  }, 60_000);
});
