import { REQUEST_ID_HEADER, signInternalRequest } from '@rp/platform';

/**
 * Headers of the gateway's own calls to a service (key introspection, OpenAPI documents): the request id, and
 * the internal signature (no identity) when `INTERNAL_TOKEN` is set, since services then refuse unsigned calls.
 * `body` is the exact text that will be sent (its hash is signed); omitted for a call without a body.
 */
export function internalCallHeaders(
  method: string,
  path: string,
  requestId: string,
  token: string | undefined,
  body?: string,
): Record<string, string> {
  return {
    [REQUEST_ID_HEADER]: requestId,
    ...(token ? signInternalRequest({ token, method, path, requestId, body }) : {}),
  };
}
