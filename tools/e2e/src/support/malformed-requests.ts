import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Random } from './seeded-random';

/** One route of an app: a method and a path template (`{id}` or `:id` parameters), as the app lists it. */
export interface Route {
  method: string;
  path: string;
}

/** One generated request: exact method, request target, headers and body bytes. */
export interface MalformedRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'QUERY', 'get'];

/** Values for a path parameter or a query value: empty, huge, hostile, the wrong type. */
const PARAMETERS = [
  '',
  '0',
  '-1',
  'null',
  'undefined',
  'GAAAA',
  'x'.repeat(300),
  '%00',
  '%zz',
  '%2e%2e',
  '%2F',
  '..',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%ED%A0%80',
  "'%20OR%201=1",
  '<script>',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H',
  'CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC',
];

/** Ways to bend a well-formed path: each must be refused or routed like the path it spells. */
const PATH_TRICKS: ((path: string, random: Random) => string)[] = [
  (path) => path,
  (path) => `${path}/`,
  (path) => `/${path}`,
  (path) => path.replace('/', '//'),
  (path) => path.replace(/\/([^/]+)$/, '/../$1'),
  (path) => path.replace(/\/([^/]+)$/, '/./$1'),
  (path) => path.replace(/\/([^/]+)$/, '/%2e%2e/$1'),
  (path) => path.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`),
  (path) => path.replace(/\//g, '%2F'),
  (path) => path.replace(/\//g, '\\'),
  (path) => `${path}%00`,
  (path) => `${path}%zz`,
  (path) => `${path}%`,
  (path) => `${path};jsessionid=1`,
  (path) => `${path}#fragment`,
  (path) => `http://127.0.0.1${path}`,
  (path) => `http://evil.example${path}`,
  (path) => path.toUpperCase(),
  (path, random) => `${path}/${'a'.repeat(200 + random.int(5000))}`,
  (path) => `${path}/%E2%80%AE`,
  () => '*',
];

const QUERIES = [
  '',
  '?',
  '?a',
  '?a=1&a=2',
  '?a[]=1',
  '?a[b]=1',
  '?__proto__[x]=1',
  '?constructor[prototype][x]=1',
  '?email=',
  '?email=a%40b.co',
  '?wallet=%zz',
  '?limit=-1&offset=1e309',
  '?%00=%00',
];

const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/problem+json',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json, text/plain',
  ';;;',
  '',
];

const ENCODINGS = [undefined, 'gzip', 'x-gzip', 'deflate', 'br', 'gzip, br', 'compress', 'identity', 'GZIP', 'zstd'];

const HEADER_JUNK: [string, () => string][] = [
  ['authorization', () => 'Bearer rp_live_notAKey0000000000000000000000'],
  ['authorization', () => 'Basic Og=='],
  ['authorization', () => `Bearer ${'x'.repeat(3000)}`],
  ['x-api-key', () => 'rp_test_'],
  ['x-admin-key', () => 'not-the-admin-key'],
  ['x-webhook-secret', () => 'not-the-secret'],
  ['x-request-id', () => '../../etc/passwd'],
  ['x-forwarded-for', () => '127.0.0.1, 10.0.0.1'],
  ['x-rp-identity', () => 'e30'],
  ['x-rp-signature', () => 'v2=deadbeef'],
  ['accept', () => 'application/xml'],
  ['accept-encoding', () => 'br;q=2, *;q=-1'],
  ['range', () => 'bytes=0-0'],
  ['expect', () => '100-continue'],
  ['if-none-match', () => '*'],
  ['cookie', () => 'a=b'],
];

/** The `BODY_LIMIT` the suite starts every app with: a body just past it is a 413. */
export const BODY_LIMIT = '16kb';
const BODY_LIMIT_BYTES = 16 * 1024;

/** Small compressed bodies whose JSON is 16 times the limit once decoded. */
const BOMB = Buffer.from(`{"bomb":"${'b'.repeat(16 * BODY_LIMIT_BYTES)}"}`);
const BOMBS = { gzip: gzipSync(BOMB), deflate: deflateSync(BOMB), br: brotliCompressSync(BOMB) };

/** A JSON document that is wrong somehow: wrong types, extra fields, prototype keys, deep, long, odd text. */
function junkJson(random: Random): string {
  const scalars: unknown[] = [null, true, 0, -1, 1e308, '', ' ', 'x'.repeat(2000), '\u202e', '\ud83d\ude00', [], {}];
  const kind = random.int(9);
  if (kind === 0) return JSON.stringify(random.pick(scalars));
  if (kind === 1)
    return `{"${random.pick(['email', 'walletAddress', 'apiKey', 'channels', 'id'])}":${JSON.stringify(random.pick(scalars))}}`;
  if (kind === 2) return '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}';
  if (kind === 3) return `${'['.repeat(1 + random.int(200))}${']'.repeat(1 + random.int(200))}`;
  if (kind === 4) return '{"a":"\\ud800"}';
  if (kind === 5) return '{"a":1,"a":2}';
  if (kind === 6) return '{"email": "a@b.co", ';
  if (kind === 7) return JSON.stringify({ email: 'a@b.co', walletAddress: random.pick(PARAMETERS), extra: [1, 2] });
  return random.pick(['', ' ', 'null', '"text"', '1', 'NaN', '{', '}', '\u0000']);
}

/** Body bytes: JSON-ish text, bytes that are not UTF-8, a body past any BODY_LIMIT, or nothing. */
function junkBody(random: Random): Buffer | undefined {
  const kind = random.int(10);
  if (kind === 0) return undefined;
  if (kind === 1) return Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]);
  if (kind === 2) return Buffer.from(`{"pad":"${'x'.repeat(BODY_LIMIT_BYTES + random.int(1000))}"}`);
  return Buffer.from(junkJson(random));
}

/** The body as `encoding` says, honestly or not: compressed, not compressed, truncated, trailing, a bomb. */
function encodeBody(random: Random, encoding: string | undefined, body: Buffer): Buffer {
  const name = encoding?.trim().toLowerCase();
  const compress = name === 'br' ? brotliCompressSync : name === 'deflate' ? deflateSync : gzipSync;
  const kind = random.int(6);
  if (!encoding || kind === 0) return body;
  if (kind === 1) return compress(body).subarray(0, Math.max(1, random.int(compress(body).length)));
  if (kind === 2) return Buffer.concat([compress(body), Buffer.from('trailing')]);
  if (kind === 3) return BOMBS[name === 'br' ? 'br' : name === 'deflate' ? 'deflate' : 'gzip'];
  return compress(body);
}

/** `route.path` with every parameter filled with a junk value. */
function filled(random: Random, path: string): string {
  return path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, () => random.pick(PARAMETERS));
}

/**
 * One malformed request for `route`: a method (usually the route's own), the path bent by a trick, a junk query,
 * junk headers, a content type and encoding (honest or not), and a body of any kind, on any method.
 */
export function malformedRequest(
  random: Random,
  route: Route,
  extraHeaders: () => Record<string, string>,
): MalformedRequest {
  const method = random.next() < 0.6 ? route.method : random.pick(METHODS);
  const target = random.pick(PATH_TRICKS)(filled(random, route.path), random) + random.pick(QUERIES);
  const headers: Record<string, string> = { ...extraHeaders() };
  for (let i = random.int(3); i > 0; i -= 1) {
    const [name, value] = random.pick(HEADER_JUNK);
    headers[name] = value();
  }
  const contentType = random.pick(CONTENT_TYPES);
  if (contentType !== undefined) headers['content-type'] = contentType;
  const encoding = random.pick(ENCODINGS);
  if (encoding !== undefined) headers['content-encoding'] = encoding;
  const body = junkBody(random);
  return { method, target, headers, body: body && encodeBody(random, encoding, body) };
}
