import { readFileSync } from 'node:fs';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) that the summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; hitCount?: number }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a piece of code belongs, for the question "where does a request's time go". */
const CATEGORIES: [category: string, test: RegExp][] = [
  [
    'logging',
    /node_modules\/(pino|pino-http|nestjs-pino|sonic-boom|fast-redact|safe-stable-stringify|on-exit-leak-free|thread-stream)\/|platform\/src\/lib\/logging\//,
  ],
  ['metrics', /node_modules\/prom-client\/|platform\/src\/lib\/metrics\//],
  [
    'redis (rate-limit script)',
    /node_modules\/(ioredis|redis-parser|redis-errors|cluster-key-slot|denque|standard-as-callback)\/|gateway\/src\/rate-limit\//,
  ],
  ['introspection and access', /gateway\/src\/(auth|access)\//],
  ['signing (internal identity)', /platform\/src\/lib\/internal-auth\//],
  [
    'proxying',
    /node_modules\/(http-proxy-middleware|http-proxy|httpxy|follow-redirects|undici|@fastify\/reply-from)\/|gateway\/src\/routing\//,
  ],
  ['validation', /node_modules\/(class-validator|class-transformer|validator)\//],
  ['database', /node_modules\/(better-sqlite3|@electric-sql|pg|pg-protocol|mongoose|mongodb)\/|persistence\/src\//],
  ['security headers', /node_modules\/helmet\/|platform\/src\/lib\/http\/security-headers/],
  [
    'framework (routing, parsing, Nest)',
    /node_modules\/(@nestjs|express|router|body-parser|raw-body|path-to-regexp|finalhandler|send|on-finished|type-is|content-type|qs|iconv-lite|fastify|@fastify|find-my-way|light-my-request|avvio|fast-json-stringify|secure-json-parse|rxjs|reflect-metadata|debug|depd|mime-types|accepts|negotiator|vary|encodeurl|parseurl|fresh|etag|statuses|http-errors|merge-descriptors|cookie|proxy-addr|forwarded|ipaddr\.js)\/|platform\/src\/lib\/(bootstrap|errors|http)\//,
  ],
  [
    'node http and sockets',
    /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net|timers|url|dns|async_hooks|process\/task_queues))/,
  ],
  ['node crypto', /^node:(crypto|internal\/crypto)/],
  ['our service code', /(apps|libs)\/[^/]+\/src\//],
];

export interface ProfileSummary {
  /** Milliseconds the process was busy (not idle) during the profile. */
  busyMs: number;
  /** Busy milliseconds by category, largest first. */
  byCategory: { category: string; ms: number }[];
}

/** Native functions (no script URL) that do the work of a category above. */
const NATIVE: Record<string, string> = {
  writev: 'node http and sockets',
  writeBuffer: 'node http and sockets',
  writeUtf8String: 'node http and sockets',
  writeLatin1String: 'node http and sockets',
  onStreamRead: 'node http and sockets',
  wrapSafe: 'module loading',
  readFileUtf8: 'module loading',
  internalModuleStat: 'module loading',
  compileFunction: 'module loading',
  runMicrotasks: 'promise machinery',
};

function categoryOf(url: string, functionName: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)' || functionName === '(root)') return 'V8 and native (program)';
  if (url === '' && NATIVE[functionName]) return NATIVE[functionName];
  // The one WebAssembly module left is undici's HTTP parser (llhttp): the gateway's forwarding client.
  if (url.startsWith('wasm://')) return 'proxying';
  for (const [category, test] of CATEGORIES) if (test.test(url)) return category;
  if (url.startsWith('node:')) return 'other node internals';
  if (url.includes('node_modules/')) return `other packages (${/node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1]})`;
  return url === '' ? 'native builtins' : 'other';
}

/**
 * Self time per category of one `.cpuprofile`, idle time left out, and the first `skipMs` of the profile (the
 * process booting) too.
 */
export function summariseProfile(path: string, skipMs = 0): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const totals = new Map<string, number>();
  let busy = 0;
  let elapsed = 0;
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    elapsed += ms;
    if (elapsed < skipMs || !frame || frame.functionName === '(idle)') return;
    const category = categoryOf(frame.url, frame.functionName);
    totals.set(category, (totals.get(category) ?? 0) + ms);
    busy += ms;
  });
  return {
    busyMs: busy,
    byCategory: [...totals.entries()].map(([category, ms]) => ({ category, ms })).sort((a, b) => b.ms - a.ms),
  };
}

/** A Markdown table of a summary, in microseconds per request served. */
export function profileTable(title: string, summary: ProfileSummary, requests: number): string {
  const perRequest = (ms: number) => ((ms * 1000) / requests).toFixed(1);
  return [
    `${title}: ${requests} requests, ${perRequest(summary.busyMs)} µs of CPU per request`,
    '',
    '| where the time goes | µs per request | share |',
    '|---|---|---|',
    ...summary.byCategory
      .filter((row) => row.ms / summary.busyMs >= 0.005)
      .map((row) => `| ${row.category} | ${perRequest(row.ms)} | ${((row.ms / summary.busyMs) * 100).toFixed(1)} % |`),
  ].join('\n');
}

if (require.main === module) {
  const [path, requests, skipMs = '0'] = process.argv.slice(2);
  process.stdout.write(`${profileTable(path, summariseProfile(path, Number(skipMs)), Number(requests))}\n`);
}
