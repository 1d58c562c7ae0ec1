import { rawRequest, requestBytes } from '@rp/platform';
import type { MalformedRequest } from './malformed-requests';

/** What became of one request: the status, or `closed` when the server cut the connection without an answer. */
export interface Outcome {
  status: number | 'closed';
  /** The answer's body, cut short (for the report of a failing case). */
  body: string;
}

/**
 * Sends generated requests to one app byte for byte over raw sockets, `concurrency` at a time: `fetch` and undici
 * normalise or refuse the very targets, methods and headers the suite is about. Each request has its connection
 * (`Connection: close`): a request that desynchronises a connection cannot spill into the next case.
 */
export class FuzzClient {
  private readonly port: number;

  constructor(
    origin: string,
    readonly concurrency = 16,
  ) {
    this.port = Number(new URL(origin).port);
  }

  async send(request: MalformedRequest): Promise<Outcome> {
    const bytes = requestBytes(request.method, request.target, request.headers, request.body);
    const answer = await rawRequest(this.port, bytes, { timeoutMs: 30_000 });
    return answer ? { status: answer.status, body: answer.body.slice(0, 300) } : { status: 'closed', body: '' };
  }

  /** Sends `count` requests made by `make`, `concurrency` at a time; calls `seen` with each outcome. */
  async run(
    count: number,
    make: (i: number) => MalformedRequest,
    seen: (request: MalformedRequest, outcome: Outcome) => void,
  ): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: this.concurrency }, async () => {
        while (next < count) {
          const request = make(next++);
          seen(request, await this.send(request));
        }
      }),
    );
  }
}
