/**
 * No input makes txb answer 5xx, and no refused input is stored: at least 1,000 generated malformed requests per
 * route, through the gateway with a valid key, against a sandbox holding real positions. The generator is seeded,
 * so a failing request can be replayed; the failing request is printed with its answer.
 */
import { randomBytes } from 'node:crypto';
import { type Stack, startStack } from '@rp/dev';
import { type RedisClient, closeRedisConnection, createRedisConnection } from '@rp/platform';
import { UNIT } from '@rp/sandbox';
import { Account, Keypair, Networks, Operation, StrKey, TransactionBuilder } from '@stellar/stellar-sdk';
import { type Random, generator } from './support/seeded-random';

const PER_ROUTE = 1000;
const REDIS_DB = 8;

/** A checksum-valid strkey with one character changed: looks right, fails the checksum. */
function corrupted(strkey: string): string {
  const i = 10 + (strkey.charCodeAt(3) % 40);
  return strkey.slice(0, i) + (strkey[i] === 'A' ? 'B' : 'A') + strkey.slice(i + 1);
}

/** Values of every JSON type and many wrong shapes of the right type. */
function junk(random: Random, stack: Stack): unknown {
  const values: (() => unknown)[] = [
    () => null,
    () => random.int(1_000_000) - 500_000,
    () => random.next() * 1e30,
    () => random.next() < 0.5,
    () => [],
    () => [random.int(9), 'x'],
    () => ({}),
    () => ({ nested: { deeper: [1, { a: 'b' }] } }),
    () => '',
    () => ' ',
    () => 'x'.repeat(1 + random.int(5000)),
    () => '\u0000\u202e\ud83d\ude00',
    () => '-1',
    () => '1.5',
    () => '1e9',
    () => '007',
    () => '9'.repeat(60),
    () => Keypair.random().publicKey().toLowerCase(),
    () => corrupted(Keypair.random().publicKey()),
    () => corrupted(stack.scenario.pool),
    () => Keypair.random().secret(),
    () => StrKey.encodeMed25519PublicKey(randomBytes(40)),
    () => '<script>alert(1)</script>',
    () => "' OR 1=1 --",
    () => '../../etc/passwd',
    () => randomBytes(1 + random.int(64)).toString('base64'),
  ];
  return random.pick(values)();
}

/** A build request that is wrong in at least one way. */
function malformedBuild(random: Random, stack: Stack, wallet: string): unknown {
  const valid: Record<string, unknown> = {
    action: random.pick(['REPAY', 'LIQUIDATE', 'UNWIND']),
    walletAddress: wallet,
    poolAddress: stack.scenario.pool,
    tokenId: stack.scenario.usdc,
  };
  // Fields for which no junk value is valid.
  const fields = ['action', 'walletAddress', 'poolAddress', 'tokenId', 'amount'];
  const kind = random.int(10);
  if (kind === 0) return junk(random, stack); // not an object at all, or an empty one
  if (kind === 1)
    return { ...valid, [random.pick(['extra', 'admin', '__proto__x', 'constructor'])]: junk(random, stack) };
  if (kind === 2) {
    const missing = { ...valid };
    delete missing[random.pick(['action', 'walletAddress', 'poolAddress'])];
    return missing;
  }
  if (kind === 3) return { ...valid, action: random.pick(['repay', 'BORROW', 'Unwind', '', 'REPAY ']) };
  if (kind === 4)
    return { ...valid, amount: random.pick(['0', '-1', '1.0', ' 1', '0x10', '1e3', (2n ** 127n).toString()]) };
  if (kind === 5) return { ...valid, slippageBps: random.pick([-1, 10_001, 1.5, '50', null, Number.MAX_SAFE_INTEGER]) };
  if (kind === 6) {
    return random.next() < 0.5
      ? { ...valid, action: 'REPAY', targetHealthFactor: 1.5 }
      : { ...valid, action: 'UNWIND', targetHealthFactor: random.pick([0, 1, 100.5, -2, '1.5', 1.123456789]) };
  }
  if (kind === 7) return { ...valid, action: 'UNWIND', amount: '1000' };
  if (kind === 8) return { ...valid, [random.pick(fields)]: junk(random, stack) };
  // Well-formed but naming what does not exist: an unknown wallet, a contract that is not a pool.
  return random.next() < 0.5
    ? { ...valid, walletAddress: Keypair.random().publicKey() }
    : { ...valid, poolAddress: StrKey.encodeContract(randomBytes(32)) };
}

/** A submit request that is not the signed envelope of a live proposal of this key. */
function malformedSubmit(random: Random, stack: Stack, envelopes: readonly string[]): unknown {
  const kind = random.int(8);
  if (kind === 0) return junk(random, stack);
  if (kind === 1) return { transactionXdr: junk(random, stack) };
  if (kind === 2) return {};
  if (kind === 3) return { transactionXdr: random.pick(envelopes), rpcUrl: junk(random, stack) };
  if (kind === 4)
    return { transactionXdr: random.pick(envelopes), rpcUrl: `https://evil-${random.int(100)}.example/rpc` };
  if (kind === 5) return { transactionXdr: random.pick(envelopes), extra: true };
  if (kind === 6) {
    const envelope = random.pick(envelopes);
    const cut = random.int(envelope.length);
    return { transactionXdr: envelope.slice(0, cut) + envelope.slice(cut + 1 + random.int(8)) };
  }
  return { transactionXdr: random.pick(envelopes) };
}

function malformedQuery(random: Random, stack: Stack): string {
  const value = () => encodeURIComponent(String(junk(random, stack)));
  return random.pick([
    () => '',
    () => `?wallet=${value()}`,
    () => `?wallet=${Keypair.random().publicKey()}&other=${value()}`,
    () => `?wallet=${Keypair.random().publicKey()}&wallet=${Keypair.random().publicKey()}`,
    () => `?wallet[]=${value()}`,
    () => `?wallet[a]=1`,
    () => `?${value()}=${value()}`,
    () => `?wallet=${corrupted(Keypair.random().publicKey())}`,
  ])();
}

describe('malformed requests to the transaction builder', () => {
  let stack: Stack;
  let key: string;
  let keyId: string;
  let redis: RedisClient;
  const fiveHundreds: string[] = [];

  beforeAll(async () => {
    stack = await startStack({
      apps: ['subscription', 'txb', 'gateway'],
      redisDb: REDIS_DB,
      env: { gateway: { PUBLIC_RATE_LIMIT: '100000', PUBLIC_BURST: '100000' } },
    });
    ({ apiKey: key, keyId } = await stack.api.partnerKey());
    const url = new URL(stack.redisUrl);
    redis = createRedisConnection(
      { url: url.toString(), host: url.hostname, port: Number(url.port), db: REDIS_DB },
      'e2e',
    );
  }, 180_000);

  afterAll(async () => {
    if (redis) await closeRedisConnection(redis);
    await stack?.close();
  });

  /** Sends `count` requests, 8 at a time; every answer must be below 500. Returns the statuses seen. */
  async function fire(count: number, send: (i: number) => Promise<{ status: number; what: string }>) {
    fiveHundreds.length = 0;
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const i = next++;
          const { status, what } = await send(i);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status >= 500) fiveHundreds.push(`${status} ${what}`);
        }
      }),
    );
    return statuses;
  }

  async function raw(method: string, path: string, body?: string) {
    const answer = await fetch(`${stack.api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const text = await answer.text();
    return { status: answer.status, what: `${method} ${path} ${body?.slice(0, 300) ?? ''} -> ${text.slice(0, 300)}` };
  }

  /** This key's proposals anywhere in txb's Redis database. */
  async function storedForKey(): Promise<number> {
    let count = 0;
    for await (const keys of redis.scanStream({ match: 'txb:proposal:*', count: 500 }) as AsyncIterable<string[]>) {
      for (const proposalKey of keys) if ((await redis.hget(proposalKey, 'accountId')) === keyId) count += 1;
    }
    const owners = await redis.keys(`txb:owner:${keyId}:*`);
    return count + owners.length;
  }

  it(`answers ${PER_ROUTE} malformed builds with 4xx and stores none`, async () => {
    const random = generator(11);
    const wallet = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT }).address;
    const statuses = await fire(PER_ROUTE, (i) => {
      // One in 20 is not even JSON.
      if (i % 20 === 0) return raw('POST', '/txb/build', `{"action": "REPAY", "walletAddress": ${'['.repeat(i % 7)}`);
      return raw('POST', '/txb/build', JSON.stringify(malformedBuild(random, stack, wallet)));
    });
    expect(fiveHundreds).toEqual([]);
    expect([...statuses.keys()].every((status) => status >= 400 && status < 500)).toBe(true);
    // The generator reaches past validation: well-formed requests about nothing that exists are 404s.
    expect([statuses.get(400) ?? 0, statuses.get(404) ?? 0].every((count) => count > 0)).toBe(true);
    expect(await storedForKey()).toBe(0);
  }, 300_000);

  it(`answers ${PER_ROUTE} malformed submissions with 4xx and sends nothing`, async () => {
    const random = generator(22);
    // Real envelopes of the wrong kind: unsigned, signed by strangers, for other networks, not proposals at all.
    const source = new Account(Keypair.random().publicKey(), '10');
    const envelopes = Array.from({ length: 20 }, (_, i) => {
      const tx = new TransactionBuilder(source, {
        fee: '100',
        networkPassphrase: i % 2 ? Networks.TESTNET : Networks.PUBLIC,
      })
        .addOperation(Operation.bumpSequence({ bumpTo: String(100 + i) }))
        .setTimeout(60)
        .build();
      if (i % 3) tx.sign(Keypair.random());
      return tx.toXDR();
    });
    const sends = stack.sandbox.control.dump().rpcCalls['sendTransaction'] ?? 0;
    const statuses = await fire(PER_ROUTE, (i) =>
      i % 20 === 0
        ? raw('POST', '/txb/submit', '{"transactionXdr": "AAAA"')
        : raw('POST', '/txb/submit', JSON.stringify(malformedSubmit(random, stack, envelopes))),
    );
    expect(fiveHundreds).toEqual([]);
    expect([...statuses.keys()].every((status) => status >= 400 && status < 500)).toBe(true);
    // Envelopes that parse but are nobody's proposal reach the lookup: 404.
    expect(statuses.get(404) ?? 0).toBeGreaterThan(0);
    expect(stack.sandbox.control.dump().rpcCalls['sendTransaction'] ?? 0).toBe(sends);
    expect(await storedForKey()).toBe(0);
  }, 300_000);

  it(`answers ${PER_ROUTE} malformed proposal queries with 4xx or an empty list`, async () => {
    const random = generator(33);
    const statuses = await fire(PER_ROUTE, () => raw('GET', `/txb/proposals${malformedQuery(random, stack)}`));
    expect(fiveHundreds).toEqual([]);
    expect([...statuses.keys()].every((status) => status === 200 || (status >= 400 && status < 500))).toBe(true);
  }, 300_000);

  it(`answers ${PER_ROUTE} odd status calls without a 5xx`, async () => {
    const random = generator(44);
    await fire(PER_ROUTE, () =>
      raw(random.pick(['GET', 'HEAD', 'POST', 'DELETE']), `/txb/status${malformedQuery(random, stack)}`),
    );
    expect(fiveHundreds).toEqual([]);
    expect(await storedForKey()).toBe(0);
  }, 300_000);
});
