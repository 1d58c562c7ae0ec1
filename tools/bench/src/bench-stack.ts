import { randomUUID } from 'node:crypto';
import type { CallerIdentity } from '@rp/contracts';
import { type IssuedKey, type Stack, type StackOptions, startStack } from '@rp/dev';
import { signInternalRequest } from '@rp/platform';
import type { Pool } from 'undici';

/** What every app of a benchmark runs with: production mode, warnings only (a benchmark measures, it does not log). */
export const BENCH_SETTINGS = { NODE_ENV: 'production', LOG_LEVEL: 'warn' };

/** A stack (the kit's `startStack`) with its apps in production mode; `options.env.all` adds to BENCH_SETTINGS. */
export function startBenchStack(options: StackOptions): Promise<Stack> {
  const all = options.env?.all;
  return startStack({
    ...options,
    env: {
      ...options.env,
      all: (wired) => ({ ...BENCH_SETTINGS, ...(typeof all === 'function' ? all(wired) : all) }),
    },
  });
}

/** Node flags that write a V8 CPU profile of the process to `dir` as `<name>.cpuprofile` (none without `dir`). */
export function profileFlags(dir: string | undefined, name: string): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
}

/** Resident memory of an app in MB, from its own `/metrics`. */
export async function residentMb(app: { url: string }): Promise<number> {
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  return Number(/^process_resident_memory_bytes(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? 0) / 1e6;
}

/** A POST straight to a service as the gateway forwards it: signed with `token`, `identity` as the caller. */
export function signedPost(
  pool: Pool,
  token: string,
  path: string,
  identity: Parameters<typeof signInternalRequest>[0]['identity'],
  body: string,
) {
  const requestId = randomUUID();
  return pool.request({
    method: 'POST',
    path,
    headers: {
      ...signInternalRequest({ token, method: 'POST', path, requestId, identity, body }),
      'x-request-id': requestId,
      'content-type': 'application/json',
    },
    body,
  });
}

/**
 * A partner key issued on `stack` (its API key, for calls through the gateway), and the headers of a `GET path` as
 * the gateway forwards it for that key's caller: signed identity with a fresh nonce and request id (for calls
 * straight to the service or through the floor proxy).
 */
export async function benchPartner(
  stack: Stack,
  path: string,
): Promise<{ apiKey: string; signedGet: () => Record<string, string> }> {
  const key = (await stack.api.partnerKey({ email: 'bench@example.com' })) as IssuedKey & CallerIdentity;
  const identity: CallerIdentity = {
    keyId: key.keyId,
    tier: key.tier,
    rateLimit: key.rateLimit,
    burst: key.burst,
    expiresAt: key.expiresAt,
    email: 'bench@example.com',
    account: key.account,
  };
  const signedGet = () => {
    const requestId = randomUUID();
    return {
      ...signInternalRequest({ token: stack.internalToken, method: 'GET', path, requestId, identity }),
      'x-request-id': requestId,
    };
  };
  return { apiKey: key.apiKey, signedGet };
}
