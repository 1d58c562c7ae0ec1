import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { readBody, sendJson } from '../server/http-io';
import type { FaultInjector } from './faults';
import { RpcError, type SorobanRpc } from './soroban-rpc';

interface JsonRpcRequest {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

/** Serves JSON-RPC 2.0 over HTTP POST for the Soroban RPC stand-in, applying injected faults first. */
export class RpcEndpoint {
  /** Calls per method since start or reset, for the sandbox page and benchmarks. */
  readonly callCounts = new Map<string, number>();

  constructor(
    private readonly rpc: SorobanRpc,
    private readonly faults: FaultInjector,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let request: JsonRpcRequest;
    try {
      request = JSON.parse((await readBody(req)).toString('utf8')) as JsonRpcRequest;
    } catch {
      sendJson(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      return;
    }
    const id = request.id ?? null;
    if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } });
      return;
    }
    const method = request.method;
    this.callCounts.set(method, (this.callCounts.get(method) ?? 0) + 1);
    const params = (request.params && typeof request.params === 'object' ? request.params : {}) as Record<
      string,
      unknown
    >;
    const { latencyMs, fault } = this.faults.take(method);
    if (latencyMs > 0) await delay(latencyMs);
    if (fault?.kind === 'http-error') {
      if (fault.retryAfter !== undefined) res.setHeader('retry-after', String(fault.retryAfter));
      sendJson(res, fault.status, { error: 'injected fault' });
      return;
    }
    if (fault?.kind === 'rpc-error') {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32603, message: 'injected fault: internal error' } });
      return;
    }
    try {
      if (fault?.kind === 'lose-reply') {
        // The work is done (a transaction is queued), then the answer never arrives.
        this.rpc.call(method, params);
        res.destroy();
        return;
      }
      const result = fault ? this.faulted(fault.kind, params) : this.rpc.call(method, params);
      sendJson(res, 200, { jsonrpc: '2.0', id, result });
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      sendJson(res, 200, { jsonrpc: '2.0', id, error: { code, message: (error as Error).message } });
    }
  }

  private faulted(kind: string, params: Record<string, unknown>): unknown {
    const hash = this.rpc.hashOf(params);
    const status = kind === 'drop' ? 'PENDING' : 'TRY_AGAIN_LATER';
    const latest = this.rpc.call('getLatestLedger', {}) as { sequence: number; closeTime: string };
    return { status, hash, latestLedger: latest.sequence, latestLedgerCloseTime: latest.closeTime };
  }
}
