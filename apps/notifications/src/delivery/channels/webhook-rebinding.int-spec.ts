/**
 * DNS rebinding between the webhook URL check and the connection, against a real DNS server (node:dgram, on
 * loopback) that answers a public address first and a private one after, and a real TCP listener at that private
 * address: the delivery must never connect there.
 */
import { type Socket as UdpSocket, createSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { type AddressInfo, type LookupFunction, type Server, createServer } from 'node:net';
import type { AlertMessage } from './alert-message';
import { DeliveryError } from './delivery-error';
import { postJson } from './post-json';
import { WebhookProvider } from './webhook.provider';
import { WebhookUrlPolicy } from './webhook-url';

const DISCORD = 'https://discord.com/api/webhooks/123456/abcDEF_-x';
const PUBLIC = '203.0.113.7';
const PRIVATE = '127.0.0.1';
const MESSAGE: AlertMessage = { level: 'high', title: 'Test', facts: [], action: 'WATCH', footer: 'test' };

/** A DNS server answering A queries from `answers` in turn (the last one for ever after); AAAA: no records. */
async function rebindingDns(answers: string[]) {
  const queries: string[] = [];
  const socket: UdpSocket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    let offset = 12;
    const labels: string[] = [];
    while (query[offset] !== 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]).toString());
      offset += query[offset] + 1;
    }
    const questionEnd = offset + 5;
    const type = query.readUInt16BE(offset + 1);
    const name = labels.join('.');
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the query's id
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    const records: Buffer[] = [];
    if (type === 1) {
      queries.push(name);
      const address = answers[Math.min(queries.length - 1, answers.length - 1)];
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(0, 6); // TTL 0: nothing may keep it
      record.writeUInt16BE(4, 10);
      address.split('.').forEach((byte, i) => record.writeUInt8(Number(byte), 12 + i));
      records.push(record);
    }
    header.writeUInt16BE(records.length, 6);
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${(socket.address() as AddressInfo).port}`]);
  return {
    queries,
    resolve: (hostname: string) => resolver.resolve4(hostname),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A TCP listener on the private address that counts the connections it gets. */
async function privateListener() {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, PRIVATE, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('a webhook host that rebinds from a public to a private address', () => {
  it('is checked public, then the delivery refuses to connect to the private address it resolves to', async () => {
    const dnsServer = await rebindingDns([PUBLIC, PRIVATE]);
    try {
      const policy = new WebhookUrlPolicy([], dnsServer.resolve);
      const sent = new WebhookProvider(policy).send(DISCORD, MESSAGE);
      await expect(sent).rejects.toBeInstanceOf(DeliveryError);
      await expect(sent).rejects.toMatchObject({
        kind: 'permanent',
        message: expect.stringContaining('host resolves to a private, loopback or link-local address'),
      });
      // Asked twice: the policy's check before the send (public: passed), the connection's own lookup (refused).
      expect(dnsServer.queries).toEqual(['discord.com', 'discord.com']);
    } finally {
      await dnsServer.close();
    }
  });

  it('never reaches a listener at the private address, which an unchecked lookup would have reached', async () => {
    const dnsServer = await rebindingDns([PUBLIC, PRIVATE]);
    const listener = await privateListener();
    try {
      const policy = new WebhookUrlPolicy([], dnsServer.resolve);
      const check = await policy.check(DISCORD);
      if (!check.ok || !check.lookup) throw new Error('the public answer should pass the check');
      const url = `https://discord.com:${listener.port}/api/webhooks/123456/abcDEF_-x`;
      await expect(postJson(url, {}, 'webhook', { lookup: check.lookup })).rejects.toMatchObject({
        kind: 'permanent',
      });
      expect(listener.connections()).toBe(0);
      // The control: the same pool honours a lookup, so an unchecked one does connect to the private address.
      const unchecked: LookupFunction = (_host, options, callback) =>
        options.all
          ? (callback as unknown as (e: null, all: object[]) => void)(null, [{ address: PRIVATE, family: 4 }])
          : callback(null, PRIVATE, 4);
      await expect(postJson(url, {}, 'webhook', { lookup: unchecked })).rejects.toBeInstanceOf(DeliveryError);
      expect(listener.connections()).toBe(1);
    } finally {
      await listener.close();
      await dnsServer.close();
    }
  });
});
