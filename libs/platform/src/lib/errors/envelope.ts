import { HttpException, NotFoundException } from '@nestjs/common';
import { ErrorCode, ErrorDetail, ErrorEnvelope, errorCodeForStatus } from '@rp/contracts';
import { ApiError } from './api-error';

export interface RenderedError {
  status: number;
  body: ErrorEnvelope & Record<string, unknown>;
  headers: Record<string, string>;
  /** True when the error is ours to fix (5xx not raised on purpose): log it with its stack. */
  unexpected: boolean;
}

/**
 * Errors raised while a request is read, before any route runs: Fastify's own (identified by `code`), ours from the
 * body readers (`MalformedJsonError`, `UnsupportedEncodingError`, a body that fails to decompress), and stream failures Fastify marks as 4xx (a body
 * that fails to decompress). Each becomes a 4xx with a plain message; none is ever a 500.
 */
const REQUEST_READ_ERRORS: Record<string, { status: number; code: string; message: (error: ReadError) => string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: (error) => `Request body is larger than the limit${error.limit ? ` of ${error.limit} bytes` : ''}`,
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: () => 'Content-Type is not supported: send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: ErrorCode.BAD_REQUEST,
    message: () => 'Request body size does not match Content-Length',
  },
  RP_UNDECODABLE_BODY: {
    status: 400,
    code: ErrorCode.BAD_REQUEST,
    message: () => 'Request body could not be decoded as its Content-Encoding says',
  },
  RP_MALFORMED_JSON: { status: 400, code: ErrorCode.MALFORMED_JSON, message: (error) => error.message },
  RP_UNSUPPORTED_ENCODING: { status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: (error) => error.message },
};

interface ReadError {
  code: string;
  message: string;
  statusCode?: number;
  /** The body limit in bytes, when the platform knows it (set on 413s). */
  limit?: number;
}

function isReadError(error: unknown): error is ReadError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as ReadError).code === 'string' &&
    (error as ReadError).code in REQUEST_READ_ERRORS
  );
}

/** A 4xx raised by the HTTP framework or a body stream (Fastify sets `statusCode` on them): meant for the client. */
function isClientReadError(error: unknown): error is ReadError & { statusCode: number } {
  const candidate = error as Partial<ReadError> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    !(candidate instanceof HttpException) &&
    typeof candidate.statusCode === 'number' &&
    candidate.statusCode >= 400 &&
    candidate.statusCode < 500
  );
}

/** Maps any thrown value to the envelope. Never leaks the internals of an unexpected error. */
export function renderError(error: unknown, requestId: string | undefined): RenderedError {
  const rendered = classify(error);
  return {
    ...rendered,
    body: { ...rendered.body, requestId },
  };
}

function classify(error: unknown): RenderedError {
  if (error instanceof ApiError) {
    return {
      status: error.getStatus(),
      body: envelope(error.getStatus(), error.code, error.message, error.details, error.body),
      headers: error.headers ?? {},
      unexpected: false,
    };
  }
  if (isReadError(error)) {
    const known = REQUEST_READ_ERRORS[error.code];
    return {
      status: known.status,
      body: envelope(known.status, known.code, known.message(error)),
      headers: {},
      unexpected: false,
    };
  }
  if (isClientReadError(error)) {
    return {
      status: error.statusCode,
      body: envelope(
        error.statusCode,
        errorCodeForStatus(error.statusCode),
        `Request could not be read: ${error.message}`,
      ),
      headers: {},
      unexpected: false,
    };
  }
  if (error instanceof NotFoundException && /^Cannot [A-Z]+ /.test(error.message)) {
    const [, method, path] = error.message.split(' ');
    return {
      status: 404,
      body: envelope(404, ErrorCode.NOT_FOUND, `No route for ${method} ${path}`),
      headers: {},
      unexpected: false,
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return {
      status,
      body: envelope(status, errorCodeForStatus(status), messageOf(error)),
      headers: {},
      unexpected: status >= 500,
    };
  }
  return {
    status: 500,
    body: envelope(500, ErrorCode.INTERNAL_ERROR, 'Internal server error'),
    headers: {},
    unexpected: true,
  };
}

function envelope(
  status: number,
  code: string,
  message: string,
  details?: ErrorDetail[],
  extra?: Record<string, unknown>,
): ErrorEnvelope & Record<string, unknown> {
  return {
    success: false,
    status,
    code,
    error: message,
    ...(details && details.length > 0 ? { details } : {}),
    ...extra,
  };
}

function messageOf(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : error.message;
}
