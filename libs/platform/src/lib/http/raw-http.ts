import { Socket, connect } from 'node:net';

/** One answer read off a raw socket: status, headers (lower-case names) and body text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` (the exact bytes of an HTTP/1.1 request: request line, headers, body) on a fresh connection and
 * reads one answer. `fetch` normalises request targets and refuses odd methods with bodies, so tests of what a
 * server does with any bytes a client can send speak HTTP themselves. Resolves `undefined` if the server closed the
 * connection without answering (a refusal Node's parser makes itself, or a cut); never hangs past `timeoutMs`.
 * With `stopAfter`, only that many bytes are sent and the socket is then destroyed (a client gone mid-body).
 */
export function rawRequest(
  port: number,
  request: Buffer | string,
  options: { timeoutMs?: number; stopAfter?: number } = {},
): Promise<RawAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    const finish = () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const answer = parseAnswer(Buffer.concat(chunks));
      if (answer && answer.complete) {
        socket.destroy();
        finish();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : request;
    if (options.stopAfter === undefined) {
      socket.write(bytes);
      return;
    }
    socket.write(bytes.subarray(0, options.stopAfter), () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(undefined);
    });
  });
}

/** The request bytes for `method target` with these headers and body (Content-Length set unless given). */
export function requestBytes(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Buffer {
  const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1'];
  const named = Object.keys(headers).map((name) => name.toLowerCase());
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (payload && !named.includes('content-length') && !named.includes('transfer-encoding')) {
    lines.push(`content-length: ${payload.length}`);
  }
  lines.push('connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), payload ?? Buffer.alloc(0)]);
}

function parseAnswer(bytes: Buffer): (RawAnswer & { complete: boolean }) | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  // An interim answer (100 Continue) comes before the real one.
  if (status >= 100 && status < 200) return parseAnswer(bytes.subarray(end + 4));
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = bytes.subarray(end + 4);
  const length = headers['content-length'];
  const complete = length !== undefined ? body.length >= Number(length) : false;
  return { status, headers, body: body.toString('utf8'), complete };
}
