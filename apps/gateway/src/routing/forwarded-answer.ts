import type { IncomingHttpHeaders, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { type HttpReply, isDraining } from '@rp/platform';
import type { Dispatcher } from 'undici';

/** A known-length answer up to this size is written in one go (head and body in one write); larger ones stream. */
const WHOLE_ANSWER_LIMIT = 64 * 1024;

/** Set by the server for its own connection with the client; never copied from a service's answer. */
const RESPONSE_HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'trailer']);

/** Where an answer goes: the client's response, and what the gateway adds to it. */
export interface AnswerTarget {
  readonly res: ServerResponse;
  /** Called once, when the service has answered: the response is the gateway's to write from then on. */
  takeOver(): void;
  /** The gateway's own headers of this answer (the request id, `RateLimit-*`), written over the service's. */
  ownHeaders(): Readonly<Record<string, unknown>>;
  /** True once the server has begun to close: the answer then says `Connection: close`. */
  draining(): boolean;
}

/** A Fastify reply as an answer's target: taken over (hijacked) when the service answers. */
export function replyTarget(reply: HttpReply): AnswerTarget {
  return {
    res: reply.raw,
    takeOver: () => reply.hijack(),
    ownHeaders: () => reply.getHeaders(),
    draining: () => isDraining(reply.server),
  };
}

export interface AnswerEvents {
  /** The service could not be asked or gave no answer: nothing was written, the caller answers for it. */
  failed(error: Error): void;
  /** The answer has been handed to the client in full, or the client was cut off. */
  finished(): void;
  /** The service's answer broke off after it began (`stalled` when it went silent): the client was cut off. */
  brokeOff(how: 'stalled' | 'broke off'): void;
}

const ANSWER = Symbol('forwarded answer');
type AnsweringResponse = ServerResponse & { [ANSWER]?: ForwardedAnswer };

function onClientClosed(this: AnsweringResponse): void {
  this[ANSWER]?.clientClosed();
}

/**
 * Carries one service answer to the client as undici receives it, writing straight to the client's socket: the
 * status and headers as the service sent them (hop-by-hop headers removed, the gateway's own headers such as the
 * request id and `RateLimit-*` on top), a small known-length body together with the head in one write, anything
 * else chunk by chunk with backpressure. The reply is taken over from Fastify (hijacked) only once the service has
 * answered, so a failure before that is still answered in the error envelope; the access log and metrics hooks
 * still see the finished answer. The client going away aborts the call to the service.
 */
export class ForwardedAnswer implements Dispatcher.DispatchHandler {
  private controller?: Dispatcher.DispatchController;
  private readonly res: ServerResponse;
  private started = false;
  private headWritten = false;
  private whole?: Buffer[];
  private status = 502;
  /** The answer's head as name, value, name, value...: node writes it without walking an object's keys. */
  private readonly head: (string | OutgoingHttpHeader)[] = [];

  constructor(
    private readonly target: AnswerTarget,
    private readonly events: AnswerEvents,
  ) {
    this.res = target.res;
    (this.res as AnsweringResponse)[ANSWER] = this;
    // One listener function for every answer (no closure per call): the answer hangs on the response.
    this.res.on('close', onClientClosed);
  }

  /** The client's connection closed: unless the answer was handed over whole, the call to the service is aborted. */
  clientClosed(): void {
    if (!this.res.writableFinished) this.controller?.abort(new Error('the client went away'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.res.destroyed) controller.abort(new Error('the client went away'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: the real answer follows
    this.started = true;
    this.target.takeOver();
    this.status = statusCode;
    const own = this.target.ownHeaders();
    const closing = this.target.draining();
    const head = this.head;
    // The service's headers but hop-by-hop ones and those the gateway writes over (its own, by the same name)...
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined && !RESPONSE_HOP_BY_HOP.has(name) && own[name] === undefined) head.push(name, value);
    }
    // ...then the gateway's own, and `Connection: close` once the server is closing.
    for (const name in own) {
      const value = own[name] as OutgoingHttpHeader | undefined;
      if (value !== undefined && !(closing && name === 'connection')) head.push(name, value);
    }
    if (closing) head.push('connection', 'close');
    const length = Number(headers['content-length']);
    if (Number.isInteger(length) && length <= WHOLE_ANSWER_LIMIT) {
      this.whole = [];
      return;
    }
    // A streamed answer: the client learns the status at once, whatever comes after.
    this.writeHead();
    this.res.flushHeaders();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.whole) {
      this.whole.push(chunk);
      return;
    }
    this.writeHead();
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    if (this.whole) {
      const body = this.whole.length === 1 ? this.whole[0] : Buffer.concat(this.whole);
      this.writeHead();
      this.res.end(body);
    } else {
      this.writeHead();
      this.res.end();
    }
    this.events.finished();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error & { code?: string }): void {
    if (!this.started) {
      this.events.failed(error);
      return;
    }
    if (!this.res.destroyed && !this.res.writableFinished) {
      // The answer has begun: no envelope can follow, and a clean end would pass a truncated body as whole.
      this.events.brokeOff(error.code === 'UND_ERR_BODY_TIMEOUT' ? 'stalled' : 'broke off');
      this.res.destroy();
    }
    this.events.finished();
  }

  private writeHead(): void {
    if (this.headWritten) return;
    this.headWritten = true;
    this.res.writeHead(this.status, this.head);
  }
}
