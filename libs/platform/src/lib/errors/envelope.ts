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

/** Errors raised by body-parser before any route runs, identified by their `type`. */
const BODY_PARSER_ERRORS: Record<string, { status: number; code: string; message: (limit?: number) => string }> = {
  'entity.parse.failed': {
    status: 400,
    code: ErrorCode.MALFORMED_JSON,
    message: () => 'Request body is not valid JSON',
  },
  'entity.too.large': {
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: (limit) => `Request body is larger than the limit${limit ? ` of ${limit} bytes` : ''}`,
  },
  'entity.verify.failed': { status: 400, code: ErrorCode.BAD_REQUEST, message: () => 'Request body was rejected' },
  'encoding.unsupported': {
    status: 415,
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: () => 'Content-Encoding is not supported',
  },
  'charset.unsupported': {
    status: 415,
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: () => 'Request charset is not supported',
  },
  'request.aborted': { status: 400, code: ErrorCode.BAD_REQUEST, message: () => 'Request was aborted by the client' },
  'request.size.invalid': {
    status: 400,
    code: ErrorCode.BAD_REQUEST,
    message: () => 'Request body size does not match Content-Length',
  },
};

interface BodyParserError {
  type: string;
  limit?: number;
}

/** An http-errors error meant for the client (`expose`): body-parser wraps stream failures (bad gzip) this way. */
interface ExposedHttpError {
  status: number;
  expose: true;
  message: string;
}

function isExposedHttpError(error: unknown): error is ExposedHttpError {
  const candidate = error as Partial<ExposedHttpError> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.expose === true &&
    typeof candidate.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 500
  );
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as BodyParserError).type === 'string' &&
    (error as BodyParserError).type in BODY_PARSER_ERRORS
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
  if (isBodyParserError(error)) {
    const known = BODY_PARSER_ERRORS[error.type];
    return {
      status: known.status,
      body: envelope(known.status, known.code, known.message(error.limit)),
      headers: {},
      unexpected: false,
    };
  }
  if (isExposedHttpError(error)) {
    return {
      status: error.status,
      body: envelope(error.status, errorCodeForStatus(error.status), `Request could not be read: ${error.message}`),
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
