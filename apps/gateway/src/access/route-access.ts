/**
 * Who may call what under `/api/v1` (DECISIONS.md, Gateway). `public`, `admin` and `webhook` routes need no API
 * key at the gateway and are limited per IP; admin and webhook routes are checked by their service (`x-admin-key`,
 * `X-Webhook-Secret`). Every other route needs a key and is limited per key.
 */
export type RouteAccess = 'public' | 'admin' | 'webhook' | 'key';

interface AccessRule {
  access: Exclude<RouteAccess, 'key'>;
  path: string;
  /** `exact`: that path only; `subtree`: that path and every path below it (whole segments). */
  match: 'exact' | 'subtree';
  /** Any method when omitted. */
  methods?: readonly string[];
}

export const API_PREFIX = '/api/v1';

const ACCESS_RULES: readonly AccessRule[] = [
  { access: 'public', path: '/api/v1/keys/subscribe', match: 'exact' },
  { access: 'public', path: '/api/v1/keys/subscribe/prepare', match: 'exact' },
  { access: 'public', path: '/api/v1/keys/subscribe/complete', match: 'exact' },
  { access: 'public', path: '/api/v1/keys/subscribe/status', match: 'exact' },
  { access: 'public', path: '/api/v1/txb/status', match: 'exact', methods: ['GET', 'HEAD'] },
  { access: 'admin', path: '/api/v1/keys/partners', match: 'subtree' },
  { access: 'admin', path: '/api/v1/keys/admin', match: 'subtree' },
  { access: 'admin', path: '/api/v1/rms/notifications/trigger', match: 'exact' },
  { access: 'admin', path: '/api/v1/rms/notifications/dlq', match: 'subtree' },
  { access: 'admin', path: '/api/v1/rms/notifications/queues', match: 'subtree' },
  { access: 'webhook', path: '/api/v1/rms/notifications/webhook', match: 'exact', methods: ['POST'] },
];

/** The access class of a request under `/api/v1`; `undefined` for any other path (health, metrics, docs). */
export function routeAccess(method: string, path: string): RouteAccess | undefined {
  // Services route `/x/` as `/x` (Express, non-strict), so the gateway classifies it the same way.
  const normalised = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
  if (!isUnder(normalised, API_PREFIX)) return undefined;
  const verb = method.toUpperCase();
  for (const rule of ACCESS_RULES) {
    const matched = rule.match === 'exact' ? normalised === rule.path : isUnder(normalised, rule.path);
    if (matched && (!rule.methods || rule.methods.includes(verb))) return rule.access;
  }
  return 'key';
}

/** `path` is `prefix` or a path below it, matching whole segments (no string built: it runs on every call). */
export function isUnder(path: string, prefix: string): boolean {
  if (path.length === prefix.length) return path === prefix;
  return path.length > prefix.length && path.charCodeAt(prefix.length) === SLASH && path.startsWith(prefix);
}

const SLASH = 0x2f;
