import { HttpException } from '@nestjs/common';
import { ErrorDetail, errorCodeForStatus } from '@rp/contracts';

export interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Extra top-level body fields (the 402 answer adds `paymentRequirements`, `x402Version`, `accepts`). */
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error meant for the caller: status, stable code, readable message. Rendered as the error envelope. */
export class ApiError extends HttpException {
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly body?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string | undefined, message: string, options: ApiErrorOptions = {}) {
    super(message, status, { cause: options.cause });
    this.code = code ?? errorCodeForStatus(status);
    this.details = options.details;
    this.body = options.body;
    this.headers = options.headers;
  }
}
