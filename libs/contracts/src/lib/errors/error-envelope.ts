/** One problem with one input field. `field` is a dotted path (`alert.riskLevel`, `channels[1]`). */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** The body of every error answer of every service (DECISIONS.md, Error envelope). */
export interface ErrorEnvelope {
  success: false;
  status: number;
  code: string;
  error: string;
  details?: ErrorDetail[];
  requestId?: string;
}

/** Codes shared by every service. Feature codes (`NO_DEBT_TO_REPAY`, ...) live beside their feature. */
export const ErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  MALFORMED_JSON: 'MALFORMED_JSON',
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  UNPROCESSABLE: 'UNPROCESSABLE',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  BAD_GATEWAY: 'BAD_GATEWAY',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  NOT_READY: 'NOT_READY',
  /** A direct call to a service that requires the gateway's signed internal headers (`INTERNAL_TOKEN`). */
  INTERNAL_AUTH_REQUIRED: 'INTERNAL_AUTH_REQUIRED',
} as const;
export type CommonErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const CODE_BY_STATUS: Readonly<Record<number, CommonErrorCode>> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHORIZED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  422: ErrorCode.UNPROCESSABLE,
  429: ErrorCode.RATE_LIMITED,
  502: ErrorCode.BAD_GATEWAY,
  503: ErrorCode.SERVICE_UNAVAILABLE,
  504: ErrorCode.UPSTREAM_TIMEOUT,
};

/** The code used when an error carries only an HTTP status. */
export function errorCodeForStatus(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? ErrorCode.INTERNAL_ERROR : ErrorCode.BAD_REQUEST);
}
