/**
 * The agent's client of the service against a real HTTP server on loopback: what each answer becomes (data, key
 * rejected, unavailable, refused), and that a 429 is not waited for (the agent reads the ledger instead).
 */
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyRejectedError, ServiceClient, ServiceRefusedError, ServiceUnavailableError } from './service-client';

const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const POOL = 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA';

describe('ServiceClient', () => {
  let server: Server;
  let client: ServiceClient;
  let answer: { status: number; body: unknown; headers?: Record<string, string> };
  let seen: { url: string; headers: IncomingMessage['headers']; body: string }[];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        res
          .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
          .end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new ServiceClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });

  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  beforeEach(() => {
    seen = [];
  });

  const envelope = (status: number, code: string) => ({ success: false, status, code, error: `${code} happened` });

  it('asks for the risk with its key and returns the answer', async () => {
    const risk = {
      success: true,
      walletAddress: WALLET,
      positions: [],
      evaluatedAt: '2026-11-22T12:00:00.000Z',
      timestamp: '2026-11-22T12:00:00.000Z',
    };
    answer = { status: 200, body: risk };
    await expect(client.risk('rp_test_agent', WALLET)).resolves.toEqual(risk);
    expect(seen[0].url).toBe(`/api/v1/rms/risk/${WALLET}`);
    expect(seen[0].headers['x-api-key']).toBe('rp_test_agent');
    expect(seen[0].headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends an UNWIND build of its own wallet', async () => {
    answer = { status: 400, body: envelope(400, 'VALIDATION_FAILED') };
    await client
      .build('rp_test_agent', { walletAddress: WALLET, poolAddress: POOL, slippageBps: 500 })
      .catch(() => undefined);
    expect(JSON.parse(seen[0].body)).toEqual({
      action: 'UNWIND',
      walletAddress: WALLET,
      poolAddress: POOL,
      slippageBps: 500,
    });
  });

  it('a 401 is a rejected key', async () => {
    answer = { status: 401, body: envelope(401, 'INVALID_API_KEY') };
    await expect(client.submit('rp_test_agent', 'AAAA')).rejects.toBeInstanceOf(KeyRejectedError);
  });

  it('a 429 is unavailable at once, not waited for', async () => {
    answer = { status: 429, body: envelope(429, 'RATE_LIMITED'), headers: { 'Retry-After': '30' } };
    await expect(client.risk('rp_test_agent', WALLET)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
  });

  it('a 5xx or an unknown route is unavailable; a 404 of the service is a refusal with its code', async () => {
    answer = { status: 503, body: envelope(503, 'NOT_CONFIGURED') };
    await expect(client.risk('rp_test_agent', WALLET)).rejects.toBeInstanceOf(ServiceUnavailableError);
    answer = { status: 404, body: envelope(404, 'NOT_FOUND') };
    await expect(client.risk('rp_test_agent', WALLET)).rejects.toBeInstanceOf(ServiceUnavailableError);
    answer = { status: 404, body: envelope(404, 'NO_POSITION_FOUND') };
    const refused = await client
      .build('rp_test_agent', { walletAddress: WALLET, poolAddress: POOL, slippageBps: 500 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceRefusedError);
    expect(refused).toMatchObject({ status: 404, code: 'NO_POSITION_FOUND', body: envelope(404, 'NO_POSITION_FOUND') });
  });

  it('a service that cannot be reached is unavailable', async () => {
    const closed = new ServiceClient('http://127.0.0.1:1', 2000);
    await expect(closed.risk('rp_test_agent', WALLET)).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
