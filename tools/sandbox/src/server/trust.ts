import { globalAgent } from 'node:https';

/**
 * Makes this process trust the sandbox's loopback certificate for HTTPS, for clients that refuse plain-HTTP RPC
 * URLs (the x402 client builds its transaction through the SDK without `allowHttp`). Other processes can set
 * `NODE_EXTRA_CA_CERTS=tools/sandbox/tls/loopback.crt` instead.
 */
export function trustSandboxCertificate(certificate: string): void {
  const current = globalAgent.options.ca;
  const list = current === undefined ? [] : Array.isArray(current) ? current : [current];
  if (!list.includes(certificate)) globalAgent.options.ca = [...list, certificate];
}
