/**
 * Faults the control API can inject into the RPC stand-in, each for the next `count` calls of a method (or of
 * every method with `*`): a JSON-RPC error, an HTTP error status, added latency, `TRY_AGAIN_LATER` from
 * `sendTransaction`, a transaction accepted as PENDING and then silently dropped, or a call carried out whose
 * answer is lost (`lose-reply`: the connection is cut after the work is done, as when a reply times out).
 */
export type FaultKind = 'rpc-error' | 'http-error' | 'latency' | 'try-again-later' | 'drop' | 'lose-reply';

export const FAULT_KINDS: readonly FaultKind[] = [
  'rpc-error',
  'http-error',
  'latency',
  'try-again-later',
  'drop',
  'lose-reply',
];

export interface FaultRule {
  readonly method: string;
  readonly kind: FaultKind;
  /** How many calls it affects; `Infinity` until cleared. */
  remaining: number;
  readonly latencyMs: number;
  readonly status: number;
  /** `Retry-After` (seconds) sent with an `http-error` (a 429 or 503 that says when to come back). */
  readonly retryAfter?: number;
}

export interface FaultRequest {
  readonly method?: string;
  readonly kind: FaultKind;
  readonly count?: number;
  readonly latencyMs?: number;
  readonly status?: number;
  readonly retryAfter?: number;
}

export class FaultInjector {
  private rules: FaultRule[] = [];

  add(request: FaultRequest): FaultRule {
    if (request.kind === 'try-again-later' || request.kind === 'drop') {
      if (request.method && request.method !== 'sendTransaction') {
        throw new Error(`${request.kind} applies to sendTransaction only`);
      }
    }
    const rule: FaultRule = {
      method:
        request.method ?? (request.kind === 'try-again-later' || request.kind === 'drop' ? 'sendTransaction' : '*'),
      kind: request.kind,
      remaining: request.count ?? 1,
      latencyMs: request.latencyMs ?? 1000,
      status: request.status ?? 503,
      ...(request.retryAfter !== undefined && { retryAfter: request.retryAfter }),
    };
    this.rules.push(rule);
    return rule;
  }

  /** The faults that apply to this call, consumed. Latency combines with one other fault. */
  take(method: string): { latencyMs: number; fault?: FaultRule } {
    let latencyMs = 0;
    let fault: FaultRule | undefined;
    for (const rule of this.rules) {
      if (rule.remaining <= 0 || (rule.method !== '*' && rule.method !== method)) continue;
      if (rule.kind === 'latency') {
        latencyMs += rule.latencyMs;
        rule.remaining -= 1;
      } else if (!fault) {
        fault = rule;
        rule.remaining -= 1;
      }
    }
    this.rules = this.rules.filter((rule) => rule.remaining > 0);
    return { latencyMs, fault };
  }

  list(): readonly FaultRule[] {
    return this.rules;
  }

  clear(): void {
    this.rules = [];
  }
}
