import { DeliveryError } from './delivery-error';

const TIMEOUT_MS = 10_000;

/**
 * POST a JSON body and read the answer; redirects are never followed (an answer 3xx is a permanent failure). A
 * network failure or timeout is transient. Errors name the provider, never the URL (it carries secrets).
 */
export async function postJson(
  url: string,
  body: unknown,
  provider: string,
): Promise<{ status: number; text: string; headers: Headers }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? 'no answer in time' : 'unreachable';
    throw new DeliveryError('transient', `${provider} ${reason}`);
  }
  const text = await response.text().catch(() => '');
  if (response.status >= 300 && response.status < 400) {
    throw new DeliveryError(
      'permanent',
      `${provider} answered a redirect (${response.status}); redirects are not followed`,
      { status: response.status },
    );
  }
  return { status: response.status, text, headers: response.headers };
}
