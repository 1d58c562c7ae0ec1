import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorCodeForStatus } from '@rp/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../errors/error-envelope.filter';

/** What Node's HTTP parser refused, by its error code, with what the client is told. */
const PARSER_REFUSALS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive'],
  HPE_HEADER_OVERFLOW: [431, 'The request line or headers are too large'],
};

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a target or header it cannot parse, headers
 * past the size limit, a request too slow to arrive) never reaches the app; it is answered here in the error envelope
 * and the connection closed, as Fastify's default does with its own body.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = PARSER_REFUSALS[error.code ?? ''] ?? [400, 'The request could not be parsed as HTTP/1.1'];
  const body = JSON.stringify({ success: false, status, code: errorCodeForStatus(status), error: message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Fastify's `frameworkErrors`: errors the router raises before any hook (a URL it cannot decode) leave in the envelope. */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  sendError(error, request, reply);
}
